"""The floor of a profiled model's budget: below it no schedule exists."""
from dataclasses import dataclass


@dataclass(frozen=True)
class MinBudget:
    """The lowest budget a plan can have (the floor), and the node that sets it.

    While a node runs, its inputs, its outputs and its temporary overhead are resident, so no
    schedule (every node runs at least once) fits below the largest such sum over the nodes. It is a
    floor: on chain-like models a plan exists there; where several nodes' inputs must coexist, even
    the floor may have none (then planning there raises InfeasibleBudgetError or NoPlanFoundError). Bytes
    are activation bytes, as every hiremate budget: parameters, their gradients and the model's
    inputs are excluded (they are resident throughout). ``budget="min"`` plans at ``bytes``.
    """
    bytes: int          # the floor, in activation bytes
    percent: float      # ``bytes`` as a % of the keep-all activation peak
    node: str           # the compute node that sets it
    kind: str           # its kind (forward, loss, backward)
    inputs: int         # its inputs' bytes
    outputs: int        # its outputs' bytes
    overhead: int       # its overhead: temporary bytes while it runs
    input_bytes: int    # the model inputs, outside the activation bytes

    @classmethod
    def from_dict(cls, d):
        return cls(**{k: d[k] for k in cls.__dataclass_fields__})

    def __str__(self):
        return (f"{self.bytes:,} B of activations ({self.percent:.1f} % of the keep-all activation peak, inputs "
                f"excluded), set by node '{self.node}' ({self.kind}): inputs {self.inputs:,} B + outputs "
                f"{self.outputs:,} B + overhead {self.overhead:,} B resident while it runs")
