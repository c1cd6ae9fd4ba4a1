"""MLP-Mixer (Tolstikhin et al. 2021): patch embedding, n blocks of token-mixing and
channel-mixing MLPs, global average pooling, a linear classifier; cross-entropy loss in forward()."""
import torch.nn as nn
import torch.nn.functional as F
import torch


class MixerBlock(nn.Module):
    def __init__(self, tokens, d, token_hidden, channel_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, token_hidden), nn.GELU(), nn.Linear(token_hidden, tokens))
        self.norm2 = nn.LayerNorm(d)
        self.channel_mlp = nn.Sequential(nn.Linear(d, channel_hidden), nn.GELU(), nn.Linear(channel_hidden, d))

    def forward(self, x):  # x: [B, tokens, d]
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class MLPMixer(nn.Module):
    def __init__(self, image=32, patch=4, d=128, layers=4, classes=10):
        super().__init__()
        tokens = (image // patch) ** 2
        self.stem = nn.Conv2d(3, d, patch, stride=patch)
        self.blocks = nn.Sequential(*[MixerBlock(tokens, d, 2 * tokens, 4 * d) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, images, labels):
        x = self.stem(images).flatten(2).transpose(1, 2)
        x = self.norm(self.blocks(x))
        return F.cross_entropy(self.head(x.mean(dim=1)), labels)


def make(batch=16, image=32, layers=4):
    model = MLPMixer(image=image, layers=layers)
    return model, (torch.randn(batch, 3, image, image), torch.randint(0, 10, (batch,)))
