"""A small U-Net (Ronneberger et al. 2015): an encoder of conv blocks and max-pools, a decoder of
transposed convs, skip concatenations and conv blocks; per-pixel cross-entropy loss in forward()."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, channels=(16, 32, 64), classes=4):
        super().__init__()
        self.down = nn.ModuleList()
        cin = 3
        for c in channels:
            self.down.append(conv_block(cin, c))
            cin = c
        self.bottom = conv_block(channels[-1], 2 * channels[-1])
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        cin = 2 * channels[-1]
        for c in reversed(channels):
            self.up.append(nn.ConvTranspose2d(cin, c, 2, stride=2))
            self.dec.append(conv_block(2 * c, c))
            cin = c
        self.head = nn.Conv2d(channels[0], classes, 1)

    def forward(self, images, masks):
        skips = []
        x = images
        for block in self.down:
            x = block(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.bottom(x)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], dim=1))
        return F.cross_entropy(self.head(x), masks)


def make(batch=4, size=64):
    model = UNet()
    return model, (torch.randn(batch, 3, size, size), torch.randint(0, 4, (batch, size, size)))
