"""Traces the example models to TorchScript for `hiremate profile`.

    /usr/bin/python3 examples/models/trace.py OUTDIR [NAME ...]

writes OUTDIR/NAME.pt (the traced module, in training mode; forward(*inputs) returns the scalar
loss) and OUTDIR/NAME.inputs.pt (the example inputs, a tuple of tensors saved with torch.save).
Weights are random (seeded): the measurements need shapes, not trained values."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2  # noqa: E402
import mlp_mixer  # noqa: E402
import resnet  # noqa: E402
import transformer  # noqa: E402
import unet  # noqa: E402

MODELS = {
    "gpt2": gpt2.make,
    "unet": unet.make,
    "mlp_mixer": mlp_mixer.make,
    "transformer": transformer.make,
    "resnet": resnet.make,
}


def save(model, inputs, outdir, name):
    """Traces model(*inputs) in training mode and writes NAME.pt and NAME.inputs.pt."""
    model.train()
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, check_trace=False)
    traced.save(os.path.join(outdir, name + ".pt"))
    # A tuple: the C++ unpickler of torch 1.13 reads TUPLE but not the APPEND of a one-element list.
    torch.save(tuple(inputs), os.path.join(outdir, name + ".inputs.pt"))


def main(argv):
    if not argv:
        sys.exit(__doc__)
    outdir, names = argv[0], argv[1:] or list(MODELS)
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        if name not in MODELS:
            sys.exit(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        model, inputs = MODELS[name]()
        save(model, inputs, outdir, name)
        print(f"{name}: {sum(p.numel() for p in model.parameters())} parameters -> {outdir}/{name}.pt")


if __name__ == "__main__":
    main(sys.argv[1:])
