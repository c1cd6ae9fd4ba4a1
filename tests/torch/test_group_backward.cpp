// run_backward (group_backward.cpp) against autograd's engine on small graphs: the gradients are
// bit-identical, including a broadcast input (summed back to its shape), a tensor read by several
// ops (gradients accumulated) and several roots sharing nodes.
#include <gtest/gtest.h>
#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "hiremate/torch/group_backward.h"

namespace hiremate {
namespace {

struct Leaves {
  at::Tensor x, b;
};

// Two identical leaf pairs; f builds the roots from them.
template <class F>
void expect_same_gradients(F f) {
  at::manual_seed(0);
  at::Tensor x0 = at::randn({4, 3}), b0 = at::randn({3});
  auto make = [&] { return Leaves{x0.clone().requires_grad_(true), b0.clone().requires_grad_(true)}; };
  Leaves ours = make(), theirs = make();
  std::vector<at::Tensor> r1 = f(ours), r2 = f(theirs);
  torch::autograd::edge_list edges;
  torch::autograd::variable_list grads;
  for (size_t k = 0; k < r1.size(); ++k) {
    at::Tensor g = at::full(r1[k].sizes(), 0.5f + float(k));
    edges.push_back(torch::autograd::impl::gradient_edge(r1[k]));
    grads.push_back(g);
  }
  torchbridge::run_backward(edges, grads);
  torch::autograd::backward(r2, grads);
  ASSERT_TRUE(ours.x.grad().defined());
  ASSERT_TRUE(ours.b.grad().defined());
  EXPECT_TRUE(at::equal(ours.x.grad(), theirs.x.grad()));
  EXPECT_TRUE(at::equal(ours.b.grad(), theirs.b.grad()));
  EXPECT_EQ(ours.b.grad().sizes(), theirs.b.grad().sizes());
}

TEST(TorchGroupBackward, BroadcastInputGetsItsShapeBack) {
  expect_same_gradients([](Leaves& l) { return std::vector<at::Tensor>{(l.x * l.b + l.b).tanh()}; });
}

TEST(TorchGroupBackward, ATensorReadTwiceAccumulates) {
  expect_same_gradients([](Leaves& l) {
    at::Tensor h = l.x.sin();
    return std::vector<at::Tensor>{(h * h.exp() + h.matmul(l.b).unsqueeze(1)) * l.b};
  });
}

TEST(TorchGroupBackward, SeveralRootsShareNodes) {
  expect_same_gradients([](Leaves& l) {
    at::Tensor h = (l.x + l.b).relu();
    return std::vector<at::Tensor>{h.cos(), h * 3, h.sum(0)};
  });
}

}  // namespace
}  // namespace hiremate
