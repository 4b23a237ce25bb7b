"""Solve one TAMSI step built from NumPy arrays: a 0.5 kg block resting on the ground (x, z), pushed along x.

Below μ m g the block stays within the stiction tolerance; above it, it slides with a = (f − μ m g) / m.
"""
import numpy as np
import scipy.sparse as sp

import tamsi

m, g, mu, k, h = 0.5, 9.81, 0.4, 1e4, 1e-3
solver = tamsi.TamsiSolver(tamsi.make_options(friction_newton="primal_dual"))
for push in (0.5 * mu * m * g, 3.0 * mu * m * g):  # N
    problem = tamsi.ContactProblem(
        time_step=h,
        M=sp.diags([m, m], format="csc"),               # nv × nv (kg)
        Jn=sp.csc_matrix([[0.0, 1.0]]),                 # nc × nv: vn = v_z
        Jt=sp.csc_matrix([[1.0, 0.0], [0.0, 0.0]]),     # 2nc × nv: vt = (v_x, 0)
        p_star=h * np.array([push, -m * g]),            # p* = M v0 + h τ (N·s), from rest
        delta0=[m * g / k], stiffness=[k], dissipation=[0.0], friction=[mu])
    result = solver.solve(problem)
    print(f"push {push:.3f} N: v = {result.v} m/s, fn = {result.fn[0]:.4f} N, ft = {result.ft[0, 0]:+.4f} N")
    print("   ", result.summary.brief_report())
