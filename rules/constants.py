"""Writes rules/constants.egg: one rule per (constant, precision), exact rationals."""
import math
import struct
from fractions import Fraction

CONSTANTS = [
    ("pi", math.pi),
    ("e", math.e),
    ("log2(e)", 1 / math.log(2)),
    ("log(2)", math.log(2)),
    ("sqrt(2)", math.sqrt(2)),
    ("1/sqrt(2)", 1 / math.sqrt(2)),
    ("sqrt(2/pi)", math.sqrt(2 / math.pi)),
    ("0.044715", 0.044715),
]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def rat(v):
    fr = Fraction(v)
    return f"(bigrat (bigint {fr.numerator}) (bigint {fr.denominator}))"


def main():
    out = [
        "; Constant recovery: the f32 and f64 literals a kernel carries for constants people",
        "; know. `(K name q)` prints as `name` and stands for exactly `q`, the literal the",
        "; kernel carries, so no rewrite changes a value. Written by rules/constants.py.",
        "",
    ]
    for name, v in CONSTANTS:
        for prec, val in (("f32", f32(v)), ("f64", v)):
            out.append(f"; {name} as {prec}: {val!r}")
            out.append(
                f'(rewrite (Num q) (K "{name}" q) :when ((= q {rat(val)})) :ruleset rewrites)'
            )
    # gelu's sigmoid form carries 2 * sqrt(2/pi) (exact: doubling a float is exact)
    for prec, c in (("f32", f32(math.sqrt(2 / math.pi))), ("f64", math.sqrt(2 / math.pi))):
        out.append(f"; 2 * sqrt(2/pi) as {prec}: {2 * c!r}")
        out.append(
            f"(rewrite (Num q) (Mul (Num (bigrat (bigint 2) (bigint 1))) "
            f'(K "sqrt(2/pi)" (/ q (bigrat (bigint 2) (bigint 1))))) '
            f":when ((= q {rat(2 * c)})) :ruleset rewrites)"
        )
    print("\n".join(out))


if __name__ == "__main__":
    main()
