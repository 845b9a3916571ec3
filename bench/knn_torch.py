# The k-NN graph of every point the way a PyTorch user writes it on the GPU, for comparison with
# `sepal-bench knn-graph --backend cuda` (docs/GPU_NOTES.md): blocks of queries, squared
# distances from one matrix product (|q|^2 + |x|^2 - 2 q.x), then topk. Approximate (the dot-
# product form in the product's precision, no re-rank), unlike Sepal's exact graph.
#   python3 knn_torch.py --n 1000000 --d 32 --k 15 [--precision fp32|tf32|fp16] [--block 4096]
# Prints one JSON line per run, as sepal-bench does.
import argparse
import json
import time

import torch


def clustered(n, d, seed, clusters=20):
    """Gaussian blobs around random centres, as sepal-bench's clustered data."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    centres = torch.randn(clusters, d, generator=g, device="cuda") * 4.0
    which = torch.randint(0, clusters, (n,), generator=g, device="cuda")
    return centres[which] + torch.randn(n, d, generator=g, device="cuda")


def knn_graph(x, k, block, dtype):
    """Indices of each row's k nearest other rows (n x k), nearest first."""
    n = x.shape[0]
    xs = x.to(dtype)
    norms = (x * x).sum(1)
    out = torch.empty(n, k, dtype=torch.int64, device="cuda")
    for q0 in range(0, n, block):
        q = xs[q0 : q0 + block]
        dist = norms[q0 : q0 + block, None] + norms[None, :] - 2.0 * (q @ xs.T).float()
        # The point itself is no neighbour of its own: its distance is made infinite.
        dist[torch.arange(q.shape[0], device="cuda"), torch.arange(q0, q0 + q.shape[0], device="cuda")] = float("inf")
        out[q0 : q0 + block] = dist.topk(k, dim=1, largest=False).indices
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1000000)
    p.add_argument("--d", type=int, default=32)
    p.add_argument("--k", type=int, default=15)
    p.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "fp16"])
    p.add_argument("--block", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    dtype = torch.float16 if a.precision == "fp16" else torch.float32
    x = clustered(a.n, a.d, a.seed)
    knn_graph(x[: min(a.n, 2 * a.block)], a.k, a.block, dtype)  # warm-up
    times = []
    for _ in range(max(a.repeats, 1)):
        torch.cuda.synchronize()
        start = time.perf_counter()
        knn_graph(x, a.k, a.block, dtype)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    print(json.dumps({"bench": "knn-graph-torch", "n": a.n, "d": a.d, "k": a.k,
                      "precision": a.precision, "block": a.block, "torch": torch.__version__,
                      "gpu": torch.cuda.get_device_name(), "median_s": times[len(times) // 2],
                      "min_s": times[0]}))


if __name__ == "__main__":
    main()
