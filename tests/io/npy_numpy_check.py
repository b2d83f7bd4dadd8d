#!/usr/bin/env python3
"""Cross-checks hipinfer's .npy reader and writer against numpy.

numpy writes arrays of every supported dtype, byte order, memory order and format version;
`npy_tool copy` reads each through hi::read_npy and writes it back through hi::write_npy; numpy
then loads the copy and checks the values, and checks that the copy is byte for byte what np.save
writes for the same array in little-endian C order. Files hipinfer must refuse (bfloat16 from
ml_dtypes, complex, strings, objects, records, truncated files) must fail cleanly with a message.

usage: npy_numpy_check.py NPY_TOOL
Exits 0 when everything matches, 1 on a mismatch, 77 (ctest's skip code) without numpy.
"""
import io
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print(f"SKIP: numpy is not installed for {sys.executable}; "
          "configure with -DHI_PYTHON=/path/to/python-with-numpy")
    sys.exit(77)

CODES = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"]
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 4), (1, 1, 1), (4, 1, 3, 2)]


def sample(code, shape, rng):
    dt = np.dtype(code)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "f":
        v = rng.standard_normal(n) * 1000
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30])
        v[: min(n, len(special))] = special[: min(n, len(special))]
        return v.astype(dt).reshape(shape)
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True).reshape(shape)


def expected_bytes(a):
    """What np.save writes for `a` as little-endian, C-order data."""
    le = a.astype(a.dtype.newbyteorder("<"), order="C", copy=True)
    buf = io.BytesIO()
    np.save(buf, le)  # not np.ascontiguousarray, which makes a 0-d array 1-d
    return buf.getvalue()


def save(path, a, version=None, fortran=False):
    if fortran and a.ndim > 0:  # np.asfortranarray makes a 0-d array 1-d
        a = np.asfortranarray(a)
    with open(path, "wb") as f:
        if version is None:
            np.save(f, a)
        else:
            np.lib.format.write_array(f, a, version=version)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tool = sys.argv[1]
    rng = np.random.default_rng(1234)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="hi_npy_check_") as tmp:
        cases = []  # (name, array)
        args = []
        for code in CODES:
            orders = ["<", ">"] if np.dtype(code).itemsize > 1 else ["|"]
            for bo in orders:
                for shape in SHAPES:
                    for fortran in (False, True):
                        for version in (None, (2, 0), (3, 0)) if shape == (3, 5) else (None,):
                            a = sample(code, shape, rng).astype(np.dtype(code).newbyteorder(bo) if bo != "|" else code)
                            name = f"{bo.replace('<', 'le').replace('>', 'be').replace('|', 'na')}_{code}_" \
                                   f"{'x'.join(map(str, shape)) or 'scalar'}_{'F' if fortran else 'C'}_v{(version or (1, 0))[0]}"
                            src = os.path.join(tmp, name + ".npy")
                            save(src, a, version, fortran)
                            cases.append((name, a))
                            args += [src, os.path.join(tmp, name + ".out.npy")]
        r = subprocess.run([tool, "copy"] + args, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: npy_tool exited {r.returncode}:\n{r.stderr}")
            return 1
        for name, a in cases:
            out = os.path.join(tmp, name + ".out.npy")
            b = np.load(out)
            problems = []
            if b.dtype != a.dtype.newbyteorder("<") and not (a.dtype.itemsize == 1 and b.dtype == a.dtype):
                problems.append(f"dtype {b.dtype.str}, expected {a.dtype.newbyteorder('<').str}")
            if b.shape != a.shape:
                problems.append(f"shape {b.shape}, expected {a.shape}")
            elif not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                problems.append("values differ")
            with open(out, "rb") as f:
                if f.read() != expected_bytes(a):
                    problems.append("bytes differ from np.save's")
            if problems:
                failed += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                passed += 1

        # Arrays hipinfer must refuse with a clear message, never a crash.
        refused = {
            "complex": (np.zeros(3, np.complex64), "complex"),
            "unicode": (np.array(["ab", "c"]), "string arrays"),
            "bytes": (np.array([b"ab", b"c"]), "string arrays"),
            "object": (np.array([1, "a"], dtype=object), "object arrays"),
            "record": (np.zeros(2, dtype=[("a", "<f4"), ("b", "<i8")]), "structured"),
            "longdouble": (np.zeros(2, np.longdouble), "not supported"),
        }
        try:
            import ml_dtypes
            refused["bfloat16"] = (np.zeros((2, 3), ml_dtypes.bfloat16), "bfloat16 is not a numpy dtype")
        except ImportError:
            print("note: ml_dtypes is not installed; the bfloat16 case is skipped")
        good = os.path.join(tmp, "le_f4_3x5_C_v1.npy")
        with open(good, "rb") as f:
            data = f.read()
        for cut in (5, 40, len(data) - 1):
            path = os.path.join(tmp, f"cut{cut}.npy")
            with open(path, "wb") as f:
                f.write(data[:cut])
            refused[f"cut{cut}"] = (path, "truncated")
        for name, (a, why) in refused.items():
            if isinstance(a, str):
                src = a
            else:
                src = os.path.join(tmp, f"refuse_{name}.npy")
                with open(src, "wb") as f:
                    np.save(f, a, allow_pickle=True)
            r = subprocess.run([tool, "copy", src, src + ".out"], capture_output=True, text=True)
            if r.returncode == 1 and why in r.stderr and "InvalidArgument" in r.stderr:
                passed += 1
            else:
                failed += 1
                print(f"FAIL refuse {name}: exit {r.returncode}, expected 1 and '{why}' in: {r.stderr.strip()}")

    print(f"npy numpy cross-check (numpy {np.__version__}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
