"""A small ResNet (He et al. 2016) for 32x32 images: a conv stem and three stages of two basic
blocks (two 3x3 convs with batch norm, an identity or 1x1-conv shortcut); cross-entropy in forward()."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.short(x)  # in place, as torchvision writes it
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, widths=(16, 32, 64), blocks=2, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        layers, cin = [], widths[0]
        for i, w in enumerate(widths):
            for b in range(blocks):
                layers.append(BasicBlock(cin, w, 2 if (b == 0 and i > 0) else 1))
                cin = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, images, labels):
        x = self.layers(self.stem(images))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return F.cross_entropy(self.fc(x), labels)


def make(batch=16, image=32):
    model = ResNet()
    return model, (torch.randn(batch, 3, image, image), torch.randint(0, 10, (batch,)))
