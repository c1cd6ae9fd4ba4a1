"""Traces the models the torch tests profile: OUTDIR/NAME.pt and OUTDIR/NAME.inputs.pt.
Small cases, one feature each, plus two small example models for the agreement tests."""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "models"))
import gpt2  # noqa: E402
import resnet  # noqa: E402
import trace  # noqa: E402


class MLP(nn.Module):
    def __init__(self, d=256, layers=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.head = nn.Linear(d, 10)

    def forward(self, x, y):
        for l in self.layers:
            x = torch.relu(l(x))
        return F.cross_entropy(self.head(x), y)


class Views(nn.Module):  # split / view / transpose chains over one storage
    def __init__(self, d=64):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).split(x.size(-1), dim=-1)
        q = q.view(8, 32, 4, 16).transpose(1, 2)
        k = k.view(8, 32, 4, 16).transpose(1, 2)
        v = v.view(8, 32, 4, 16).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
        return (att @ v).transpose(1, 2).reshape(8, 32, 64).sum()


class InPlace(nn.Module):  # in-place updates that eager autograd accepts
    def __init__(self, d=64):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        y = self.b(x)
        y += self.a(x)  # linear saves its input, not its output: free to update
        y.relu_()
        z = y * 3
        z.sub_(1)
        return self.c(z).pow(2).mean()


class Tied(nn.Module):
    def __init__(self, vocab=100, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return F.cross_entropy(self.out(torch.tanh(self.emb(idx))).view(-1, 100), idx.view(-1))


class Dropout(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.l1, self.l2 = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        return self.l2(F.dropout(F.gelu(self.l1(x)), 0.5, training=True)).square().mean()


class MultiOutput(nn.Module):  # max returns values and indices; chunk returns several views
    def __init__(self, d=64):
        super().__init__()
        self.l = nn.Linear(d, 2 * d)

    def forward(self, x):
        a, b = self.l(x).chunk(2, dim=-1)
        values, indices = torch.max(a * torch.sigmoid(b), dim=-1)
        return values.sum() + indices.float().mean() * 0


class NonTensorOutput(nn.Module):  # returns (loss, an int)
    def __init__(self, d=64):
        super().__init__()
        self.l = nn.Linear(d, d)

    def forward(self, x):
        return self.l(x).tanh().sum(), x.size(0)


class ControlFlow(nn.Module):
    def forward(self, x):
        for _ in range(int(x.size(0))):
            x = x * 2
        if x.sum() > 0:
            x = x + 1
        return x.sum()


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    x64 = torch.randn(8, 32, 64)
    cases = {
        "mlp": (MLP(), (torch.randn(64, 256), torch.randint(0, 10, (64,)))),
        "views": (Views(), (x64,)),
        "inplace": (InPlace(), (x64,)),
        "tied": (Tied(), (torch.randint(0, 100, (8, 16)),)),
        "dropout": (Dropout(), (x64,)),
        "multi_output": (MultiOutput(), (x64,)),
        "non_tensor_output": (NonTensorOutput(), (x64,)),
        "gpt2_small": gpt2.make(batch=2, seq=32, vocab=256, d=64, heads=4, layers=2),
        "resnet_small": resnet.make(batch=8, image=16),
        "gpt2": gpt2.make(),  # the example sizes: kernels long enough to time
        "resnet": resnet.make(),
    }
    for name, (model, inputs) in cases.items():
        trace.save(model, inputs, outdir, name)
    scripted = torch.jit.script(ControlFlow())
    scripted.save(os.path.join(outdir, "control_flow.pt"))
    torch.save((torch.randn(4, 4),), os.path.join(outdir, "control_flow.inputs.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
