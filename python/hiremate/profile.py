"""hiremate.profile(model, inputs): the measured training graph, as `hiremate profile` makes it."""
import json

from .min_budget import MinBudget
from .tracing import capture, check_model, preserved, split_inputs


class ProfiledGraph:
    """A model's measured training graph (docs/graph-format.md): forward, loss and backward compute
    nodes with measured times and overheads; data, gradient and phantom nodes with measured bytes.

    `json` is the graph in hiremate's own format (`save(path)` writes it for the CLI's solve,
    simulate, info and partition); `nodes` lists the captured forward nodes (name, TorchScript ops,
    output shapes); `min_budget` is the floor below which no plan exists (a :class:`MinBudget`: bytes, % of the
    keep-all activation peak, the node that sets it). Activation bytes exclude parameters, their
    gradients and the inputs."""

    def __init__(self, graph_json, info, baseline, min_budget):
        self.json = json.loads(graph_json)
        self._text = graph_json
        self.nodes = info["nodes"]
        self.torchscript_nodes = info["torchscript_nodes"]
        self.parameter_bytes = info["parameter_bytes"]
        self.seconds = info["seconds"]
        self.keep_all_peak, self.keep_all_time, self.input_bytes = baseline
        self.compute_nodes = len(self.json["compute"])
        self.data_nodes = len(self.json["data"])
        self.min_budget = MinBudget.from_dict(min_budget)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self._text)

    def __repr__(self):
        return (f"ProfiledGraph({self.compute_nodes} compute nodes, {self.data_nodes} data nodes, keep-all "
                f"activation peak {self.keep_all_peak} B, min budget {self.min_budget.bytes} B, step {self.keep_all_time * 1e3:.2f} ms)")


def profile(model, inputs, runs=5, *, output_to_loss=None, check_trace=True):
    """Traces `model` on `inputs`, captures and measures it (each distinct node `runs` times: the
    trimmed mean); returns its ProfiledGraph. The module's buffers and the RNG are left as they were.

    Args:
        model (torch.nn.Module), inputs (Tensor, tuple or dict of Tensors), output_to_loss,
        check_trace: as for :class:`hiremate.HiRemate`.
        runs (int): timed runs per distinct node.

    Raises:
        UntraceableModelError, BadInputError: as :class:`hiremate.HiRemate`.
    """
    check_model(model)
    flat, n_positional, keywords = split_inputs(inputs, "inputs")
    with preserved(model):
        session, _ = capture(model, flat, n_positional, keywords, output_to_loss, check=check_trace)
        session.profile(runs)
    return ProfiledGraph(session.graph_json(), session.profile_info(), session.baseline(), session.min_budget())
