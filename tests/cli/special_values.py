# SPDX-License-Identifier: MIT
# Helper of special_values.sh (not a test itself): writes .npy inputs holding NaN and Inf, and
# checks an output against an IEEE 754 float64 convolution over the zero-padded input.
# Variants of family "fft" are held to the FFT rule (docs/validation.md): outputs that IEEE
# arithmetic makes non-finite are non-finite (NaN may stand for +-Inf), outputs of their plane
# and of the same channel's planes in the neighbouring images may be too, and finite outputs
# are compared within 1e-5 of their plane's largest norm.
# Usage: special_values.py write DIR CASE | check DIR CASE Y.npy [FAMILY]
import math
import random
import struct
import sys

# Each case: the input and weight shapes, the --shape keys the files do not give, and the
# special values placed as (tensor, index, value).
CASES = {
    # A NaN weight on a 1x1 filter with padding 1, whose padded taps must give NaN like the
    # rest; an infinite weight beside it gives NaN on the padding and +-Inf inside.
    "padded_weights": {
        "x": (2, 5, 6, 7), "w": (3, 5, 1, 1), "keys": {"pad_h": 1, "pad_w": 1},
        "special": [("w", (1, 2, 0, 0), math.nan), ("w", (2, 0, 0, 0), math.inf)],
    },
    # A NaN and an Inf inside the input, in different images and channel groups, one at a
    # corner: they reach exactly the outputs whose receptive field holds them.
    "input_values": {
        "x": (2, 4, 9, 11), "w": (4, 2, 3, 2),
        "keys": {"stride_h": 2, "pad_h": 1, "pad_w": 1, "dil_w": 2, "groups": 2},
        "special": [("x", (0, 3, 4, 5), math.inf), ("x", (1, 0, 0, 10), math.nan)],
    },
    # The same at stride 1 and dilation 1, for the FFT variants: the transforms carry the values
    # to every output of the tiles (fft_tiled) or planes (fft) whose input frames hold them.
    "input_values_s1": {
        "x": (2, 4, 20, 21), "w": (4, 2, 3, 2), "keys": {"pad_h": 1, "pad_w": 1, "groups": 2},
        "special": [("x", (0, 3, 4, 5), math.inf), ("x", (1, 0, 0, 20), math.nan)],
    },
}


def spec(case):
    """The --shape keys of a case, as a SPEC string."""
    return ",".join("%s=%d" % kv for kv in CASES[case]["keys"].items())


def flat(shape, index):
    out = 0
    for size, i in zip(shape, index):
        out = out * size + i
    return out


def save(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(
        map(str, shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def load(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    shape = tuple(int(v) for v in header.split("(")[1].split(")")[0].split(",") if v.strip())
    return shape, struct.unpack("<%df" % ((len(data) - 10 - hlen) // 4), data[10 + hlen:])


def inputs(case):
    """The case's x and w: seeded float32 values of 0.25 to 1 in size, then the special values."""
    c = CASES[case]
    rng = random.Random(25)
    tensors = {}
    for name in ("x", "w"):
        n = math.prod(c[name])
        values = [rng.choice((-1, 1)) * rng.uniform(0.25, 1.0) for _ in range(n)]
        tensors[name] = list(struct.unpack("<%df" % n, struct.pack("<%df" % n, *values)))
    for name, index, value in c["special"]:
        tensors[name][flat(c[name], index)] = value
    return tensors["x"], tensors["w"]


def classify(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return "finite"


def reference(case, x, w):
    """The output by IEEE arithmetic in float64: every tap adds x * w, with x = 0.0 on padding."""
    c = CASES[case]
    n_, cc, h, wd = c["x"]
    k_, cg, r_, s_ = c["w"]
    keys = c["keys"]
    sh, sw = keys.get("stride_h", 1), keys.get("stride_w", 1)
    ph, pw = keys.get("pad_h", 0), keys.get("pad_w", 0)
    dh, dw = keys.get("dil_h", 1), keys.get("dil_w", 1)
    kg = k_ // keys.get("groups", 1)
    p_ = (h + 2 * ph - dh * (r_ - 1) - 1) // sh + 1
    q_ = (wd + 2 * pw - dw * (s_ - 1) - 1) // sw + 1
    y, norm = [], []
    for n in range(n_):
        for k in range(k_):
            for p in range(p_):
                for q in range(q_):
                    acc = scale = 0.0
                    for ci in range(cg):
                        ch = k // kg * cg + ci
                        for r in range(r_):
                            for s in range(s_):
                                ih, iw = p * sh - ph + r * dh, q * sw - pw + s * dw
                                inside = 0 <= ih < h and 0 <= iw < wd
                                xv = x[flat((n_, cc, h, wd), (n, ch, ih, iw))] if inside else 0.0
                                term = xv * w[flat(c["w"], (k, ci, r, s))]
                                acc += term
                                scale += abs(term)
                    y.append(acc)
                    norm.append(scale)
    return (n_, k_, p_, q_), y, norm


def plane_spread(shape, ref, norm):
    """For the FFT variants: per output, whether a non-finite value may reach it, and the
    largest norm of its plane (their rounding scales with the plane's largest terms). Their
    transforms take two real planes of a pass as one complex plane (spectrum columns 2j and
    2j + 1: neighbouring images, or tiles that may belong to neighbouring images), so a
    non-finite value reaches the outputs of its plane (n, k) and of the planes (n - 1, k) and
    (n + 1, k)."""
    n_, k_, p_, q_ = shape
    size = p_ * q_
    special = [any(classify(v) != "finite" for v in ref[i * size:(i + 1) * size])
               for i in range(n_ * k_)]
    spread, scale = [], []
    for n in range(n_):
        for k in range(k_):
            near = [m for m in (n - 1, n, n + 1) if 0 <= m < n_]
            spread += [any(special[m * k_ + k] for m in near)] * size
            start = (n * k_ + k) * size
            scale += [max(norm[start:start + size])] * size
    return spread, scale


def check(case, path, family):
    x, w = inputs(case)
    shape, ref, norm = reference(case, x, w)
    got_shape, y = load(path)
    if got_shape != shape:
        print("output shape %s, want %s" % (got_shape, shape))
        return 1
    planes = family == "fft"
    if planes:
        spread, norm = plane_spread(shape, ref, norm)
    bad = []
    for i, (got, want, scale) in enumerate(zip(y, ref, norm)):
        if planes and spread[i] and classify(want) != "finite":
            # Any non-finite class will do (the transforms make NaN of +-Inf).
            if classify(got) == "finite":
                bad.append("y%s = %r, want non-finite like %r" % (unflat(shape, i), got, want))
        elif planes and spread[i] and classify(got) != "finite":
            pass  # spread by the transforms from a plane that holds one
        elif classify(got) != classify(want):
            bad.append("y%s = %r, want %r" % (unflat(shape, i), got, want))
        elif classify(want) == "finite" and abs(got - want) > 1e-5 * scale + 1e-30:
            bad.append("y%s = %r, want %r (error past 1e-5 of %g)" % (
                unflat(shape, i), got, want, scale))
    special = sum(classify(v) != "finite" for v in ref)
    if bad:
        print("%d of %d outputs wrong (%d special expected): %s" % (
            len(bad), len(y), special, "; ".join(bad[:5])))
        return 1
    return 0


def unflat(shape, i):
    out = []
    for size in reversed(shape):
        out.append(i % size)
        i //= size
    return list(reversed(out))


def main():
    verb, folder, case = sys.argv[1:4]
    if verb == "write":
        x, w = inputs(case)
        save("%s/%s_x.npy" % (folder, case), CASES[case]["x"], x)
        save("%s/%s_w.npy" % (folder, case), CASES[case]["w"], w)
        print(spec(case))
        return 0
    return check(case, sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "")


if __name__ == "__main__":
    sys.exit(main())
