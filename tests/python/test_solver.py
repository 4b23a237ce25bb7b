"""The solver binding: arrays in and out, named errors, physics of one step, bitwise equality with `tamsi solve`, and
solves that run in two threads at once (the GIL released)."""

import json
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import tamsi

DATA = os.environ.get("TAMSI_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "data"))
MASS, GRAVITY, MU, K, H = 0.5, 9.81, 0.4, 1e4, 1e-3


def block_on_ground(push, copies=1, v0=None):
    """`copies` independent point masses (x, z) resting on the ground at equilibrium penetration m g / k, each pushed
    along x by `push` (N): nv = 2 copies, nc = copies."""
    nv = 2 * copies
    M = sp.identity(nv, format="csc") * MASS
    Jn = sp.csc_matrix((np.ones(copies), (np.arange(copies), 2 * np.arange(copies) + 1)), shape=(copies, nv))
    Jt = sp.csc_matrix((np.ones(copies), (2 * np.arange(copies), 2 * np.arange(copies))), shape=(2 * copies, nv))
    tau = np.tile([push, -MASS * GRAVITY], copies)
    v0 = np.zeros(nv) if v0 is None else v0
    return tamsi.ContactProblem(time_step=H, M=M, Jn=Jn, Jt=Jt, p_star=MASS * v0 + H * tau,
                                delta0=np.full(copies, MASS * GRAVITY / K), stiffness=np.full(copies, K),
                                dissipation=np.zeros(copies), friction=np.full(copies, MU), v0=v0)


def test_arrays_round_trip():
    p = block_on_ground(1.0, copies=3)
    assert (p.M - sp.identity(6) * MASS).nnz == 0
    assert p.Jn.shape == (3, 6) and p.Jt.shape == (6, 6)
    np.testing.assert_array_equal(p.stiffness, np.full(3, K))
    assert p.num_velocities == 6 and p.num_contacts == 3 and p.num_constraints == 0
    again = tamsi.ContactProblem.from_json(p.to_json())
    for field in ("p_star", "delta0", "stiffness", "dissipation", "friction", "v0"):
        np.testing.assert_array_equal(getattr(again, field), getattr(p, field))
    assert (again.Jt != p.Jt).nnz == 0
    p.friction = np.full(3, 0.25)  # fields are writable, as arrays
    np.testing.assert_array_equal(p.friction, [0.25] * 3)


def test_problem_file_round_trip(tmp_path):
    p = tamsi.ContactProblem.read(os.path.join(DATA, "box_stick_step.json"))
    p.write(str(tmp_path / "copy.json"))
    assert tamsi.ContactProblem.read(str(tmp_path / "copy.json")).to_json() == p.to_json()


def test_named_errors():
    p = block_on_ground(1.0)
    with pytest.raises(ValueError, match=r"ContactProblem\.Jt: expected 2 × 2, got 2 × 3"):
        tamsi.ContactProblem(time_step=H, M=p.M, Jn=p.Jn, Jt=sp.csc_matrix((2, 3)), p_star=p.p_star,
                             delta0=p.delta0, stiffness=p.stiffness, dissipation=p.dissipation, friction=p.friction)
    # Complex numbers and strings are refused, not cast to floats.
    args = dict(time_step=H, M=p.M, Jn=p.Jn, Jt=p.Jt, p_star=p.p_star, delta0=p.delta0, stiffness=p.stiffness,
                dissipation=p.dissipation, friction=p.friction)
    with pytest.raises(TypeError, match=r"^tamsi\.ContactProblem: p_star: expected an array of floats, got an array "
                                        r"of complex$"):
        tamsi.ContactProblem(**{**args, "p_star": p.p_star.astype(complex)})
    with pytest.raises(TypeError, match=r"p_star: expected an array of floats, got an array of str$"):
        tamsi.ContactProblem(**{**args, "p_star": [str(x) for x in p.p_star]})
    with pytest.raises(ValueError, match=r"^ContactProblem\.M: expected real numbers, got dtype complex128$"):
        tamsi.ContactProblem(**{**args, "M": p.M.astype(complex)})
    # So are Python objects; scipy's own refusal comes in one line, without the traceback pybind11 would append.
    with pytest.raises(ValueError, match=r"^ContactProblem\.M: expected real numbers, got dtype object$"):
        tamsi.ContactProblem(**{**args, "M": np.array(p.M.toarray(), dtype=object)})
    with pytest.raises(ValueError, match=r"^ContactProblem\.M: expected a scipy\.sparse matrix or a 2-D array of "
                                         r"numbers \([^\n]+\)\Z"):
        tamsi.ContactProblem(**{**args, "M": np.zeros((2, 2, 2))})
    # A huge declared size is refused before anything is allocated for it (at most 2^28 velocities, as in files).
    n = 10**9
    huge = sp.coo_matrix((np.ones(1), (np.array([n - 1]), np.array([n - 1]))), shape=(n, n))
    with pytest.raises(ValueError, match=r"ContactProblem\.M: 1000000000 x 1000000000 is more than tamsi reads"):
        tamsi.ContactProblem(time_step=H, M=huge, Jn=p.Jn, Jt=p.Jt, p_star=p.p_star, delta0=p.delta0,
                             stiffness=p.stiffness, dissipation=p.dissipation, friction=p.friction)
    with pytest.raises(ValueError, match=r"ContactProblem\.stiffness"):
        tamsi.ContactProblem(time_step=H, M=p.M, Jn=p.Jn, Jt=p.Jt, p_star=p.p_star, delta0=p.delta0,
                             stiffness=[-1.0], dissipation=p.dissipation, friction=p.friction)
    with pytest.raises(tamsi.ProblemFormatError, match=r"problem\.stiffness: must be ≥ 0"):
        tamsi.ContactProblem.read(os.path.join(DATA, "bad_problem.json"))
    with pytest.raises(ValueError, match=r"Options\.stiction_tolerance"):
        tamsi.make_options(stiction_tolerance=-1.0)
    with pytest.raises(ValueError,
                       match=r"Options\.friction_newton: unknown value 'newton' \(expected tangent or primal_dual\)"):
        tamsi.make_options(friction_newton="newton")
    options = tamsi.Options()
    options.max_iterations = 0
    with pytest.raises(ValueError, match=r"Options\.max_iterations"):
        tamsi.TamsiSolver(options)


def test_sliding_block_accelerates_at_push_minus_coulomb():
    # Pushed with 3 μ m g, the block slides: v = h (f − μ m g) / m once |v| >> v_s, and the normal force holds m g.
    push = 3 * MU * MASS * GRAVITY
    v0 = np.array([0.1, 0.0])  # sliding already, far above v_s
    result = tamsi.TamsiSolver().solve(block_on_ground(push, v0=v0))
    assert result.ok and result.summary.status == tamsi.Status.success
    expected = v0[0] + H * (push - MU * MASS * GRAVITY) / MASS
    assert result.v[0] == pytest.approx(expected, rel=1e-3)
    assert result.fn[0] == pytest.approx(MASS * GRAVITY, rel=1e-3)
    assert result.ft[0, 0] == pytest.approx(-MU * result.fn[0], rel=1e-3)
    np.testing.assert_allclose(result.vn, [result.v[1]])
    assert "success" in str(result.summary) and "iterations" in result.summary.full_report()


def test_held_block_sticks():
    # Pushed from rest with half of μ m g, the block stays inside the stiction disk, where the regularized friction
    # (eq. 7) is viscous: ft = −μ fn v / v_s, so m v = h (f + ft) gives v = h f / (m + h μ fn / v_s).
    push, v_s = 0.5 * MU * MASS * GRAVITY, tamsi.Options().stiction_tolerance
    result = tamsi.TamsiSolver().solve(block_on_ground(push))
    assert result.ok
    damping = H * MU * result.fn[0] / v_s
    assert result.v[0] == pytest.approx(H * push / (MASS + damping), rel=1e-6)
    assert abs(result.v[0]) < v_s
    assert result.ft[0, 0] == pytest.approx(-MU * result.fn[0] * result.v[0] / v_s, rel=1e-6)


def test_bitwise_equal_to_tamsi_solve(tmp_path):
    problem_path = os.path.join(DATA, "box_stick_step.json")
    output = tmp_path / "solution.json"
    subprocess.run([os.environ["TAMSI_CLI"], "solve", problem_path, "--output", str(output)], check=True,
                   stdout=subprocess.DEVNULL)
    expected = json.loads(output.read_text())
    result = tamsi.TamsiSolver().solve(tamsi.ContactProblem.read(problem_path))
    for field in ("v", "fn", "ft", "vn", "vt"):  # ft, vt: nc x 2 here, flat (2nc) in the file
        assert getattr(result, field).ravel().tolist() == expected[field], field
    assert result.summary.iterations == expected["iterations"]


def test_two_threads_solve_at_once():
    problem = block_on_ground(1.0, copies=20000)
    reference = tamsi.TamsiSolver().solve(problem)
    intervals, results = [None, None], [None, None]

    def solve(i):
        solver = tamsi.TamsiSolver()
        start = time.perf_counter()
        results[i] = solver.solve(problem)
        intervals[i] = (start, time.perf_counter())

    threads = [threading.Thread(target=solve, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = intervals
    assert a0 < b1 and b0 < a1, "the two solves did not overlap: the GIL was held"
    for r in results:
        np.testing.assert_array_equal(r.v, reference.v)


def test_vector_fields_are_copies_that_outlive_reassignment():
    p = block_on_ground(1.0)
    before = p.p_star
    p.p_star = np.zeros(1_000_000)  # a view of the old buffer would now dangle
    p.p_star = np.array([1.0, 2.0])
    np.testing.assert_array_equal(before, block_on_ground(1.0).p_star)
    v0 = p.v0
    p.v0 = None
    np.testing.assert_array_equal(v0, np.zeros(2))
    before[:] = 7.0  # writing the copy leaves the problem alone
    np.testing.assert_array_equal(p.p_star, [1.0, 2.0])


def test_options_property_is_a_copy_and_assignment_is_validated():
    solver = tamsi.TamsiSolver()
    options = solver.options
    options.max_iterations = 0
    assert solver.options.max_iterations == tamsi.Options().max_iterations
    with pytest.raises(ValueError, match="max_iterations"):
        solver.options = options


def test_duplicate_sparse_entries_add_up_as_scipy_means_them():
    # M = identity × MASS written with the (0, 0) entry split in two, in every format scipy has.
    base = block_on_ground(1.0)
    split = sp.csc_matrix((np.array([0.2 * MASS, 0.8 * MASS, MASS]), np.array([0, 0, 1]), np.array([0, 2, 3])),
                          shape=(2, 2))
    fields = dict(time_step=H, Jn=base.Jn, Jt=base.Jt, p_star=base.p_star, delta0=base.delta0,
                  stiffness=base.stiffness, dissipation=base.dissipation, friction=base.friction, v0=base.v0)
    expected = tamsi.TamsiSolver().solve(tamsi.ContactProblem(M=base.M, **fields)).v
    for M in (split, split.tocoo(), split.toarray()):
        np.testing.assert_array_equal(tamsi.TamsiSolver().solve(tamsi.ContactProblem(M=M, **fields)).v, expected)
    assert split.nnz == 3  # the caller's matrix is left as it was
    with pytest.raises(ValueError, match="ContactProblem.Jn"):
        tamsi.ContactProblem(M=base.M, **dict(fields, Jn="not a matrix"))


def test_one_solver_shared_by_threads_gives_each_the_serial_answer():
    problem = tamsi.ContactProblem.read(os.path.join(DATA, "box_stick_step.json"))
    expected = tamsi.TamsiSolver().solve(problem).v
    solver, results = tamsi.TamsiSolver(), []

    def work():
        for _ in range(50):
            results.append(solver.solve(problem).v)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 200
    for v in results:
        np.testing.assert_array_equal(v, expected)


def test_make_options_names_bad_fields():
    with pytest.raises(ValueError, match="Options.validate: no such field"):
        tamsi.make_options(validate=1)
    with pytest.raises(ValueError, match="Options.max_iterations: expected int, got .5."):
        tamsi.make_options(max_iterations="5")
    # A thread budget that would exhaust memory in the thread pool is refused before any thread starts.
    with pytest.raises(ValueError, match="Options.num_threads: must be in \\[0, [0-9]+\\]"):
        tamsi.make_options(num_threads=2**28)


def test_enum_settings_read_their_one_name():
    # Every setting's enum reads back its members' names (FromString), as make_options and sweep files do.
    for enum in (tamsi.Coupling, tamsi.FrictionRegularization, tamsi.LineSearch, tamsi.NewtonSolve,
                 tamsi.FrictionNewton, tamsi.LinearSolverType):
        for name, member in enum.__members__.items():
            assert enum.from_string(name) == member
    assert tamsi.make_options(newton_solve="reuse_factorization").newton_solve == tamsi.NewtonSolve.reuse_factorization
    with pytest.raises(ValueError, match=r"unknown value 'symmetric' \(expected exact, reuse_factorization or "
                                         r"symmetric_preconditioner\)"):
        tamsi.NewtonSolve.from_string("symmetric")


def test_summary_counters_are_attributes_and_a_dict():
    summary = tamsi.TamsiSolver().solve(block_on_ground(0.0)).summary
    assert list(summary.counters)[:2] == ["secant_iterations", "primal_dual_fallbacks"]
    for name, value in summary.counters.items():
        assert getattr(summary, name) == value
    assert summary.numeric_factorizations >= 1 and summary.time_total > 0


def _import_tamsi(coretype):
    """(openblas_core(), stderr) of `import tamsi` in a fresh interpreter, OPENBLAS_CORETYPE set or (None) unset."""
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_CORETYPE"}
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    run = subprocess.run([sys.executable, "-W", "always", "-c", "import tamsi; print(tamsi.openblas_core())"],
                         env=env, capture_output=True, text=True, check=True)
    return run.stdout.strip(), run.stderr


def test_import_warns_when_openblas_runs_generic_kernels_on_a_cpu_with_vector_ones():
    core, stderr = _import_tamsi(None)
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next(line for line in cpuinfo if line.startswith("flags")).split()
    if core == "Prescott" and "avx2" in flags and "fma" in flags:
        match = re.search(r"set OPENBLAS_CORETYPE=(\w+) before tamsi is imported", stderr)
        assert match, stderr
        assert stderr.startswith("<string>:1: RuntimeWarning"), stderr  # at the importing line
        # The named kernels load, and then nothing is said.
        assert _import_tamsi(match.group(1)) == (match.group(1), "")
    else:
        assert "OPENBLAS_CORETYPE" not in stderr
    # A caller's choice is what OpenBLAS runs, and is not second-guessed.
    if core != "":
        assert _import_tamsi("Prescott") == ("Prescott", "")
