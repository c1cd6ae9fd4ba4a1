"""One rank of test_ddp.py: wrapped models under DistributedDataParallel beside plain DDP copies of
them (same initial parameters, same per-rank data), gloo on loopback. Each case writes, per rank,
its parameters, buffers and counts to `out/<case>.rank<r>.pt`; test_ddp.py compares them."""
import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import hiremate

torch.set_num_threads(1)
D, BATCH, STEPS = 32, 16, 3


class Block(nn.Module):
    def __init__(self, d, norm=False):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.norm = nn.BatchNorm1d(4 * d) if norm else nn.Identity()
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.norm(self.fc1(x))))


class ResidualMLP(nn.Module):
    """8 residual blocks and a head; forward returns the loss."""

    def __init__(self, norm=False, blocks=8):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(D, norm) for _ in range(blocks)])
        self.head = nn.Linear(D, 1)

    def forward(self, x, y):
        return nn.functional.mse_loss(self.head(self.blocks(x)), y)


def batch(rank, step, micro=0):
    g = torch.Generator().manual_seed(1000 * rank + 10 * step + micro)
    return torch.randn(BATCH, D, generator=g), torch.randn(BATCH, 1, generator=g)


def run(module, case, rank, hooks):
    """STEPS SGD steps of `module` (a DDP); `case` says how. Returns the backward calls made."""
    opt = torch.optim.SGD(module.parameters(), lr=0.05)
    backwards = 0
    for step in range(STEPS):
        opt.zero_grad()
        if case == "no_sync":  # two micro-batches: the first accumulates locally, the second syncs
            with module.no_sync():
                module(*batch(rank, step, 0)).backward()
            module(*batch(rank, step, 1)).backward()
            backwards += 2
        else:
            loss = module(*batch(rank, step))
            if case == "scaled":  # GradScaler-style: the loss scaled, the gradients unscaled
                (loss * 1024.0).backward()
                for p in module.parameters():
                    p.grad.div_(1024.0)
            else:
                loss.backward()
            backwards += 1
        if case == "clip":
            torch.nn.utils.clip_grad_norm_(module.parameters(), 0.5)
        opt.step()
    return backwards


def case_models(case):
    torch.manual_seed(0)
    model = ResidualMLP(norm=(case == "batch_norm"))
    return model, copy.deepcopy(model)


def main(rank, world, out):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    for case in ("plain", "no_sync", "hook", "batch_norm", "find_unused", "scaled", "clip"):
        model, reference = case_models(case)
        sample = batch(rank, -1)
        # Rotor plans in milliseconds; rank 0 plans, rank 1 receives its plan.
        wrapped = hiremate.HiRemate(model, sample, budget="50%", solver="rotor", time_limit=20)
        kwargs = {"find_unused_parameters": True} if case == "find_unused" else {}
        ddp_wrapped = DDP(wrapped, **kwargs)
        ddp_plain = DDP(reference, **kwargs)
        fired = {"wrapped": 0, "plain": 0}
        if case == "hook":
            model.blocks[3].fc1.weight.register_hook(lambda g: fired.__setitem__("wrapped", fired["wrapped"] + 1))
            reference.blocks[3].fc1.weight.register_hook(lambda g: fired.__setitem__("plain", fired["plain"] + 1))
        backwards = run(ddp_wrapped, case, rank, fired)
        run(ddp_plain, case, rank, fired)
        torch.save({"params": [p.detach().clone() for p in model.parameters()],
                    "plain_params": [p.detach().clone() for p in reference.parameters()],
                    "buffers": [b.clone() for b in model.buffers()],
                    "plain_buffers": [b.clone() for b in reference.buffers()],
                    "fired": fired, "backwards": backwards, "recomputations": wrapped.plan.recomputations,
                    "loaded": wrapped.plan.loaded, "schedule": wrapped.schedule_json},
                   os.path.join(out, f"{case}.rank{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    rank, world, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    main(rank, world, out)
