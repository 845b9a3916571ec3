#!/usr/bin/env python3
"""Groups an ncu source page (SASS with per-instruction metrics) into straight-line blocks.

Input: the output of `ncu --set full --import-source yes --page source --print-source sass`
(plain or gzipped). A block is a run of consecutive instructions executed the same number of
times; each block whose share of the stall samples or of the executed warp instructions passes
the threshold is printed with its most frequent opcodes, which is enough to tell the distance
loop from the insertion network or the pair loop.

usage: ncu-blocks.py FILE [THRESHOLD]   (THRESHOLD: a fraction, default 0.01)
"""
import collections
import gzip
import re
import sys

ROW = re.compile(r'^(0x[0-9a-f]+)\s+(.*?)\s{2,}(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s')


def read_rows(path):
    """(address, instruction, samples, executed warp instructions) per SASS line."""
    opener = gzip.open if path.endswith('.gz') else open
    rows = []
    with opener(path, 'rt') as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows.append((int(m.group(1), 16), m.group(2).strip(), int(m.group(3)),
                             int(m.group(6))))
    return rows


def opcode(instruction):
    """The opcode of a SASS line, without its predicate."""
    words = instruction.split()
    return words[1] if words[0].startswith('@') and len(words) > 1 else words[0]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = read_rows(sys.argv[1])
    if not rows:
        sys.exit('no SASS rows found: was the page printed with --print-source sass?')
    threshold = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    samples = sum(r[2] for r in rows) or 1
    executed = sum(r[3] for r in rows) or 1
    print(f'{len(rows)} instructions, {samples} samples, {executed} warp instructions executed')
    blocks = []
    for row in rows:
        if blocks and blocks[-1][0][3] == row[3]:
            blocks[-1].append(row)
        else:
            blocks.append([row])
    for block in blocks:
        s = sum(r[2] for r in block) / samples
        i = sum(r[3] for r in block) / executed
        if s < threshold and i < threshold:
            continue
        ops = collections.Counter(opcode(r[1]) for r in block).most_common(6)
        print(f'{block[0][0] & 0xffff:6x} n={len(block):4d} exec={block[0][3]:10d} '
              f'samples={100 * s:5.1f}% instructions={100 * i:5.1f}% | '
              + ' '.join(f'{k}:{v}' for k, v in ops))


if __name__ == '__main__':
    main()
