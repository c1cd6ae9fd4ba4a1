"""hiremate under DistributedDataParallel, on the CPU with two processes:

    PYTHONPATH=build/python /usr/bin/python3 examples/ddp_train.py      # starts 2 processes itself
    PYTHONPATH=build/python /usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 \
        --redirects 2 --tee 2 examples/ddp_train.py

(Debian's torch 1.13 launcher fails on Python 3.11 with its default `--redirects 0`: its Std flag
lookup misses the zero member, "'NoneType' object has no attribute 'get'"; any non-zero value works.)

Each rank trains the same 8-block residual MLP on its own data, wrapped at 50 % of its keep-all
activation peak and then by DDP, beside a plain DDP copy of the model. Rank 0 profiles and plans;
rank 1 runs rank 0's plan. Per rank it prints the measured activation peak of a step against the
budget and against plain DDP's, and how far the parameters are from plain DDP's after 3 steps."""
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

import hiremate

torch.set_num_threads(1)
D, BATCH, STEPS = 256, 64, 3


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


class ResidualMLP(nn.Module):
    def __init__(self, blocks=8):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(D) for _ in range(blocks)])
        self.head = nn.Linear(D, 1)

    def forward(self, x, y):
        return nn.functional.mse_loss(self.head(self.blocks(x)), y)


def data(rank, step):
    g = torch.Generator().manual_seed(1000 * rank + step)
    return torch.randn(BATCH, D, generator=g), torch.randn(BATCH, 1, generator=g)


def train(module, rank):
    """STEPS SGD steps; the largest measured peak of a step (bytes above what was alive before it)."""
    opt = torch.optim.SGD(module.parameters(), lr=0.01)
    for p in module.parameters():  # .grad allocated before measuring: the peaks are activations
        p.grad = torch.zeros_like(p)
    peak = 0
    for step in range(STEPS):
        opt.zero_grad(set_to_none=False)
        x, y = data(rank, step)
        with hiremate.measure() as m:
            module(x, y).backward()
        peak = max(peak, m.peak)
        opt.step()
    return peak


def main():
    dist.init_process_group("gloo")  # before wrapping: the wrapper plans once for the group
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = ResidualMLP()
    reference = copy.deepcopy(model)
    wrapped = hiremate.HiRemate(model, data(rank, -1), budget="50%", solver="hiremate", time_limit=10)
    peak = train(DDP(wrapped), rank)
    plain_peak = train(DDP(reference), rank)
    diff = max((p - q).abs().max().item() for p, q in zip(model.parameters(), reference.parameters()))
    plan = wrapped.plan
    source = "loaded from rank 0" if plan.loaded else f"planned by {plan.solver}"
    print(f"rank {rank}: plan {source}; budget {plan.budget:,} B, simulated peak {plan.simulated_peak:,} B, "
          f"measured peak {peak:,} B; plain DDP measured peak {plain_peak:,} B; "
          f"max |parameter - plain DDP's| after {STEPS} steps: {diff:.3g}", flush=True)
    checksum = torch.stack([p.detach().double().sum() for p in model.parameters()]).sum()
    sums = [torch.zeros(1, dtype=torch.float64) for _ in range(dist.get_world_size())]
    dist.all_gather(sums, checksum.reshape(1))
    if rank == 0:
        print(f"parameters identical on every rank: {all(bool(s == sums[0]) for s in sums)}", flush=True)
    dist.destroy_process_group()


def spawn(world=2):
    """Without a launcher: `world` local processes on loopback, each running main()."""
    import os
    import socket
    import subprocess
    import sys
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__],
                              env=dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(r),
                                       WORLD_SIZE=str(world), LOCAL_RANK=str(r), OMP_NUM_THREADS="1"))
             for r in range(world)]
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    import os
    if "RANK" in os.environ:
        main()
    else:
        spawn()
