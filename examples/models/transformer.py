"""An encoder-decoder nn.Transformer (Vaswani et al. 2017) for sequence-to-sequence: source and
target token embeddings, nn.Transformer with a causal target mask, a linear head; the loss
(cross-entropy on the shifted target) is in forward()."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab=256, d=128, heads=4, layers=2, seq=32):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, d)
        self.tgt_emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.transformer = nn.Transformer(d, heads, layers, layers, dim_feedforward=4 * d, batch_first=True)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("causal", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, src, tgt_in, tgt_out):
        T = tgt_in.size(1)
        s = self.src_emb(src) + self.pos[:, : src.size(1)]
        t = self.tgt_emb(tgt_in) + self.pos[:, :T]
        y = self.transformer(s, t, tgt_mask=self.causal[:T, :T])
        logits = self.head(y)
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1))


def make(batch=8, seq=32, vocab=256, layers=2):
    model = Seq2Seq(vocab=vocab, layers=layers, seq=seq)
    r = lambda: torch.randint(0, vocab, (batch, seq))
    return model, (r(), r(), r())
