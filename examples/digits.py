"""Train and evaluate an MLP and a small CNN on scikit-learn's bundled digits (8x8 images, no download),
written exactly as a PyTorch user writes it, with `import tandem as torch` being the only change.

Reports accuracy and a classification report per model, saves loss curves and confusion matrices to
examples/out/digits.png, and checks that a model saved with torch.save and reloaded predicts the same.
"""
import os
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.metrics import accuracy_score, classification_report, confusion_matrix  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from tqdm import tqdm  # noqa: E402

import tandem as torch  # noqa: E402
from tandem import nn  # noqa: E402
from tandem.utils.data import DataLoader, TensorDataset  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")
device = "cuda" if torch.cuda.is_available() else "cpu"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)
        )

    def forward(self, x):
        return self.net(x)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),  # 16 x 4 x 4
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def train(model, loader, epochs, lr):
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    losses = []
    bar = tqdm(range(epochs), desc=type(model).__name__, unit="epoch")
    for _ in bar:
        model.train()
        total, count = 0.0, 0
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * xb.size(0)
            count += xb.size(0)
        scheduler.step()
        losses.append(total / count)
        bar.set_postfix(loss=f"{losses[-1]:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}")
    return losses


def predict(model, loader):
    model.eval()
    preds = []
    with torch.no_grad():
        for xb, _ in loader:
            out = model(xb.to(device))
            preds.append(out.argmax(dim=1).cpu())
    return torch.cat(preds).numpy()


def main():
    torch.manual_seed(0)
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # N x 1 x 8 x 8
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.25, random_state=0, stratify=digits.target
    )
    train_ds = TensorDataset(torch.tensor(x_train), torch.tensor(y_train))
    test_ds = TensorDataset(torch.tensor(x_test), torch.tensor(y_test))
    train_loader = DataLoader(train_ds, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(0))
    test_loader = DataLoader(test_ds, batch_size=256)

    os.makedirs(OUT, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    start = time.perf_counter()
    for col, (model, epochs, lr) in enumerate([(MLP(), 15, 2e-3), (SmallCNN(), 15, 5e-3)], start=1):
        name = type(model).__name__
        model = model.to(device)
        losses = train(model, train_loader, epochs, lr)
        pred = predict(model, test_loader)
        acc = accuracy_score(y_test, pred)
        print(f"\n{name}: held-out accuracy {acc:.4f}")
        print(classification_report(y_test, pred, digits=3))
        assert acc >= 0.95, f"{name} reached only {acc:.4f}"

        path = os.path.join(OUT, f"{name.lower()}.safetensors")
        torch.save(model.state_dict(), path)
        reloaded = type(model)().to(device)
        reloaded.load_state_dict(torch.load(path, map_location=device))
        assert (predict(reloaded, test_loader) == pred).all(), "the reloaded model predicts differently"
        print(f"{name}: saved to {path}, reloaded, same predictions")

        axes[0].plot(range(1, epochs + 1), losses, label=name)
        axes[col].imshow(confusion_matrix(y_test, pred), cmap="Blues")
        axes[col].set_title(f"{name} confusion matrix (acc {acc:.3f})")
        axes[col].set_xlabel("predicted")
        axes[col].set_ylabel("true")
    axes[0].set_title("training loss")
    axes[0].set_xlabel("epoch")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "digits.png"), dpi=100)
    print(f"done in {time.perf_counter() - start:.1f}s on {device}; figure: {os.path.join(OUT, 'digits.png')}")


if __name__ == "__main__":
    main()
