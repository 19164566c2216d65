"""The digits example (examples/digits.py) trained data-parallel: DistributedDataParallel over
the ranks of a process group, each rank reading its share of every epoch through a
DistributedSampler; the ranks' losses averaged with all_reduce, rank 0 printing and testing.

Plain PyTorch: the same script runs under torchrun and, on glassgrad, on MPI processes:

    torchrun --nproc-per-node 2 examples/digits_ddp.py                  # PyTorch (gloo)
    mpirun -n 2 python -m glassgrad run examples/digits_ddp.py          # glassgrad on MPI
    python -m glassgrad.distributed.run --nproc-per-node 2 --no-python \\
        python -m glassgrad run examples/digits_ddp.py                  # the same, torchrun-style

Needs the `examples` extra (scikit-learn) and, for glassgrad, the `distributed` extra (mpi4py
on OpenMPI: `make mpi`).
"""
import argparse

import torch
import torch.distributed as dist
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=32, help="per rank")
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def load_data():
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
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10))


def main():
    args = parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)            # the same initial model on every rank
    (x_train, y_train), (x_test, y_test) = load_data()
    train = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train, seed=args.seed)
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)
    model = DistributedDataParallel(make_model())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    if rank == 0:
        print(f"{world} ranks, {len(sampler)} of {len(train)} training images each")
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        total = torch.zeros(2)
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()         # gradients averaged over the ranks during backward
            optimizer.step()
            total += torch.tensor([loss.item() * len(labels), len(labels)])
        dist.all_reduce(total)
        if rank == 0:
            model.eval()
            with torch.no_grad():
                logits = model.module(x_test)
            accuracy = (logits.argmax(dim=1) == y_test).float().mean().item()
            print(f"epoch {epoch}  train loss {(total[0] / total[1]).item():.4f}  "
                  f"test loss {loss_fn(logits, y_test).item():.4f}  "
                  f"test accuracy {accuracy:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
