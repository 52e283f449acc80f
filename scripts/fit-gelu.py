#!/usr/bin/env python3
# The coefficients of asm's float32 gelu (geluA and geluB in
# asm/unary_generic.go): Φ(-t) = e^{-t²/2}·b/(c·t·b + a), c = √(2π), for
# 0 ≤ t ≤ 14.5, with a of degree 4 and b monic of degree 5. That is the Mills
# ratio 1/(c·(t + ρ)) with ρ = a/(c·b), so the fit is of ρ, its relative
# error weighted by ρ/(t + ρ) (how much an error in ρ moves Φ). Iteratively
# reweighted least squares of the linearised rational (a − c·ρ·b), then the
# coefficients rounded to float32 one at a time, the rest refitted after each.
# A developer tool, not run by CI. Needs numpy and mpmath (Debian's
# python3-numpy and python3-mpmath, for /usr/bin/python3):
#
#   /usr/bin/python3 scripts/fit-gelu.py
#
# prints the weighted error after rounding (2.2e-9) and the two arrays.
import mpmath as mp
import numpy as np

mp.mp.dps = 40
T, N, DA, DB = 14.5, 3000, 4, 5

k = np.arange(N)
t = T * ((1 + np.cos(np.pi * (k + 0.5) / N)) / 2) ** 1.5  # denser near 0
c = mp.sqrt(2 * mp.pi)
# G = Φ(-t)·e^{t²/2}; ρ = 1/(c·G) - t, scaled by c: the fit is of a/b = c·ρ.
rho = np.array([float(1 / (c * mp.erfc(mp.mpf(x) / mp.sqrt(2)) * mp.exp(mp.mpf(x) ** 2 / 2) / 2) - x) for x in t])
damp = rho / (t + rho)
target = rho * float(c)

Va = np.vander(t, DA + 1, increasing=True)
Vb = np.vander(t, DB + 1, increasing=True)
M = np.hstack([Va, -target[:, None] * Vb])
ncoef = DA + 1 + DB + 1


def fit(fixed):
    free = [i for i in range(ncoef) if i not in fixed]
    bprev, ww = np.ones(N), np.ones(N)
    for _ in range(100):
        wt = ww * damp / (target * bprev)
        rhs = -sum(M[:, i] * v for i, v in fixed.items())
        sol, *_ = np.linalg.lstsq(M[:, free] * wt[:, None], rhs * wt, rcond=None)
        coef = np.zeros(ncoef)
        for i, v in fixed.items():
            coef[i] = v
        coef[free] = sol
        bv = Vb @ coef[DA + 1:]
        err = (Va @ coef[:DA + 1] / bv - target) / target * damp
        bprev = bv
        ww *= (np.abs(err) / np.abs(err).max()) ** 0.25 + 1e-5
    return coef, np.abs(err).max()


fixed = {ncoef - 1: 1.0}  # b monic
coef, e = fit(fixed)
for i in range(ncoef - 1):
    fixed[i] = float(np.float32(coef[i]))
    coef, e = fit(fixed)
print("weighted relative error after rounding to float32: %.3e" % e)
print("geluA =", ", ".join(repr(float(np.float32(v))) for v in coef[:DA + 1]))
print("geluB =", ", ".join(repr(float(np.float32(v))) for v in coef[DA + 1:]))
