"""Train a small CNN on scikit-learn's handwritten digits (8x8 images, bundled: no download).

Plain PyTorch: a DataLoader that shuffles after torch.manual_seed, Adam with a cosine learning
rate schedule, a tqdm progress bar per epoch, a checkpoint saved with torch.save and reloaded
into a fresh model, and the loss and accuracy curves drawn with matplotlib.

    python examples/digits.py [--epochs N] [--out PATH]   # PyTorch
    glassgrad run examples/digits.py                      # the same script on glassgrad
    glassgrad compare examples/digits.py                  # both, and where their output differs

Needs the `examples` extra: pip install "glassgrad[examples]" (scikit-learn, tqdm, matplotlib).
"""
import argparse
import os
import tempfile

import matplotlib
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the Agg backend)

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=os.path.join(HERE, "digits.png"),
                        help="where to draw the curves (PNG)")
    return parser.parse_args()


def load_data():
    """The 1797 digits as (N, 1, 8, 8) float images in [0, 1], split 75/25, stratified."""
    digits = load_digits()
    images = digits.images.reshape(-1, 1, 8, 8) / 16.0
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
    as_tensors = (lambda x, y: (torch.tensor(x, dtype=torch.float32), torch.tensor(y)))
    return as_tensors(x_train, y_train), as_tensors(x_test, y_test)


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 2 * 2, 64), nn.ReLU(),
        nn.Linear(64, 10))


def train_epoch(model, loader, optimizer, loss_fn, epoch, epochs):
    model.train()
    total, count = 0.0, 0
    # a bar without timings, redrawn at every batch, so that two runs print the same bar
    bar = tqdm(loader, desc=f"epoch {epoch}/{epochs}", mininterval=0, miniters=1,
               bar_format="{desc}: {percentage:3.0f}%|{bar:20}| {n_fmt}/{total_fmt}")
    for images, labels in bar:
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        count += len(labels)
    return total / count


@torch.no_grad()
def evaluate(model, images, labels, loss_fn):
    model.eval()
    logits = model(images)
    predictions = logits.argmax(dim=1)
    return loss_fn(logits, labels).item(), (predictions == labels).float().mean().item(), \
        predictions


def draw(history, path):
    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, history["train_loss"], "o-", label="train")
    left.plot(epochs, history["test_loss"], "s-", label="test")
    left.set(title="cross-entropy loss", xlabel="epoch")
    left.legend()
    right.plot(epochs, history["test_accuracy"], "o-", color="tab:green")
    right.set(title="test accuracy", xlabel="epoch", ylim=(min(history["test_accuracy"]) - 0.02,
                                                            1.0))
    right.grid(alpha=0.3)
    fig.suptitle(f"small CNN on scikit-learn's digits, trained by {torch.__name__}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load_data()
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size,
                        shuffle=True)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    print(f"{len(x_train)} training and {len(x_test)} test images, "
          f"{sum(p.numel() for p in model.parameters())} parameters")

    history = {"train_loss": [], "test_loss": [], "test_accuracy": []}
    for epoch in range(1, args.epochs + 1):
        lr = scheduler.get_last_lr()[0]
        train_loss = train_epoch(model, loader, optimizer, loss_fn, epoch, args.epochs)
        scheduler.step()
        test_loss, accuracy, predictions = evaluate(model, x_test, y_test, loss_fn)
        for key, value in zip(history, (train_loss, test_loss, accuracy)):
            history[key].append(value)
        print(f"epoch {epoch:2d}  lr {lr:.5f}  train loss {train_loss:.4f}  "
              f"test loss {test_loss:.4f}  test accuracy {accuracy:.4f}")

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "digits.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": args.epochs}, path)
        checkpoint = torch.load(path)
    fresh = make_model()
    fresh.load_state_dict(checkpoint["model"])
    _, reloaded_accuracy, reloaded = evaluate(fresh, x_test, y_test, loss_fn)
    agree = (reloaded == predictions).sum().item()
    print(f"checkpoint reloaded into a fresh model: {agree}/{len(y_test)} predictions agree, "
          f"test accuracy {reloaded_accuracy:.4f}")
    assert agree == len(y_test), "the reloaded model predicts differently"

    draw(history, args.out)
    print(f"curves drawn to {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
