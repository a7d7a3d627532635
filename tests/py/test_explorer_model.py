"""The explorer's model (stablejax/explorer/model.py): each source line mapped to its jaxpr
equations, StableHLO ops and XLA fusions; backward-pass ops at their primal line; per-line stats
summing to the totals; FLOPs; folded loops; the pass timeline; a failing lowering; and the
`stablejax explore` CLI's errors, which write no page."""
from __future__ import annotations

import inspect
import json
import re

import numpy as np
import pytest

import stablejax as sj
import stablejax.numpy as jnp
from stablejax import core, lax, passes as sj_passes
from stablejax.__main__ import main
from stablejax.explorer import build_model, explore

W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def helper(w, x):
  return jnp.tanh(x @ w)


def loss(w, x):
  y = helper(w, x)
  return jnp.sum(y * y)


def f(w, x):
  return sj.grad(loss)(w, x)


def matmul(a, b):
  return a @ b


def scanned(x):
  def body(c, _):
    c = jnp.sin(c) * 2.0
    return c, c
  c, ys = lax.scan(body, x, None, length=100)
  return c + ys.sum()


unlowered_p = core.Primitive("explorer_unlowered")  # (no lowering rule on any platform)
unlowered_p.def_abstract_eval(lambda aval: aval)


def fails_to_lower(x):
  y = jnp.sin(x)
  return unlowered_p.bind(y)


def line_of(fn, snippet: str) -> int:
  """The file line of `fn`'s source holding `snippet`."""
  lines, first = inspect.getsourcelines(fn)
  (i,) = [i for i, line in enumerate(lines) if snippet in line]
  return first + i


def source_id(model, fn) -> int:
  first = inspect.getsourcelines(fn)[1]
  (src,) = [s["id"] for s in model["sources"] if s["first_line"] == first]
  return src


def view(model, view_id):
  (v,) = [v for v in model["views"] if v["id"] == view_id]
  return v["lines"]


def lines_with(model, view_id, pattern):
  return [line for line in view(model, view_id) if re.search(pattern, line["text"])]


@pytest.fixture(scope="module")
def grad_model():
  return build_model(f, W, X)


def test_sources_are_the_function_and_the_functions_it_calls(grad_model):
  sources = grad_model["sources"]
  assert sources[0]["first_line"] == inspect.getsourcelines(f)[1]
  assert sorted(s["first_line"] for s in sources) == sorted(
      inspect.getsourcelines(g)[1] for g in (f, helper, loss))
  src = sources[source_id(grad_model, helper)]
  assert src["lines"][1].strip() == "return jnp.tanh(x @ w)"
  json.dumps(grad_model)  # (the page embeds it)


def test_source_lines_map_to_eqns_ops_and_fusions(grad_model):
  at_helper = [source_id(grad_model, helper), line_of(helper, "tanh")]
  for view_id, pattern in [("jaxpr", r"= tanh "), ("jaxpr", r"= dot_general\["),
                           ("stablehlo", r"stablehlo\.tanh"),
                           ("stablehlo", r"stablehlo\.dot_general"), ("hlo", r" tanh\(")]:
    found = lines_with(grad_model, view_id, pattern)
    assert found, (view_id, pattern)
    assert all(line["locs"][:3] == [at_helper,
                                    [source_id(grad_model, loss), line_of(loss, "helper(w")],
                                    [0, line_of(f, "grad(loss)")]] for line in found)
  (hlo_tanh,) = lines_with(grad_model, "hlo", r" tanh\(")
  fusion = hlo_tanh["fusion"]
  assert fusion in grad_model["stats"][f"{at_helper[0]}:{at_helper[1]}"]["fusions"]
  (fusion_line,) = lines_with(grad_model, "hlo", rf"%{re.escape(fusion)} = .* fusion\(")
  assert at_helper in fusion_line["locs"]  # (a fusion shows the lines of what it fused)
  # y * y's backward multiply lands on its own line of `loss`
  at_square = [source_id(grad_model, loss), line_of(loss, "y * y")]
  muls = [line for line in lines_with(grad_model, "stablehlo", r"stablehlo\.multiply")
          if line["locs"][0] == at_square]
  assert muls and all(line["name_stack"] == "jit(f)/transpose(jvp())/mul" for line in muls)


def test_backward_ops_are_not_primal_and_point_at_the_primal_line(grad_model):
  for view_id in ("jaxpr", "stablehlo", "hlo"):
    lines = view(grad_model, view_id)
    assert all(line["primal"] == ("transpose(" not in line["name_stack"]) for line in lines)
    backward = [line for line in lines if not line["primal"]]
    assert backward, view_id
  (dot_t,) = [line for line in lines_with(grad_model, "stablehlo", r"stablehlo\.dot_general")
              if not line["primal"]]
  assert dot_t["name_stack"] == "jit(f)/transpose(jvp())/dot_general"
  assert dot_t["locs"][0] == [source_id(grad_model, helper), line_of(helper, "tanh")]


def test_stats_per_line_sum_to_the_totals(grad_model):
  stats, totals = grad_model["stats"].values(), grad_model["totals"]
  assert sum(s["eqns"] for s in stats) == totals["eqns"] == len(
      sj.make_jaxpr(f)(W, X).jaxpr.eqns) - 2  # (dce drops the loss itself: mul, reduce_sum)
  assert sum(s["flops"] for s in stats) == pytest.approx(totals["flops"])
  assert totals["flops"] == pytest.approx(sj.flops(f)(W, X))
  assert 0 < sum(s["ops"] for s in stats) <= totals["ops"]
  assert totals["fusions"] >= 1 and totals["hlo_instructions"] > totals["fusions"]
  assert set(grad_model["timings"]) == {"trace", "passes", "lower", "compile"}
  assert grad_model["memory"]["argument_bytes"] == W.nbytes + X.nbytes
  assert grad_model["memory"]["output_bytes"] == W.nbytes
  assert grad_model["errors"] == []


def test_flops_of_a_matmul_line():
  m, k, n = 5, 7, 3
  model = build_model(matmul, np.ones((m, k), np.float32), np.ones((k, n), np.float32))
  assert model["stats"][f"0:{line_of(matmul, 'a @ b')}"]["flops"] == 2 * m * n * k


def test_a_scan_body_is_shown_once_and_folded():
  model = build_model(scanned, np.ones(4, np.float32))
  body = [0, line_of(scanned, "jnp.sin")]
  at_scan = [0, line_of(scanned, "lax.scan")]
  for view_id, sine in [("jaxpr", r"= sin "), ("stablehlo", r"stablehlo\.sine")]:
    (sin,) = lines_with(model, view_id, sine)  # one body, not 100
    assert sin["locs"][0] == body
    (folded,) = [line for line in view(model, view_id) if line["fold"]]
    assert folded["fold"] == {"kind": "scan", "trip_count": 100}
    assert folded["locs"][0] == at_scan
  assert model["stats"][f"0:{body[1]}"]["flops"] == 100 * 2 * 4  # sin, mul of 4 each time
  assert model["totals"]["flops"] == pytest.approx(sj.flops(scanned)(np.ones(4, np.float32)))


def test_pass_timeline():
  passes = ["dce", "cse", "mlir-cse", "mlir-canonicalize"]
  model = build_model(f, W, X, passes=passes)
  timeline = model["passes"]
  assert [(p["stage"], p["name"]) for p in timeline] == [
      ("jaxpr", "dce"), ("jaxpr", "cse"), ("mlir", "mlir-cse"), ("mlir", "mlir-canonicalize")]
  dce = timeline[0]
  assert dce["ops_before"] == len(sj.make_jaxpr(f)(W, X).jaxpr.eqns)
  assert dce["ops_after"] == dce["ops_before"] - 2
  assert re.search(r"^-.*= reduce_sum", dce["diff"], re.M)
  assert not re.search(r"^\+.*= reduce_sum", dce["diff"], re.M)
  assert all(p["ops_after"] <= p["ops_before"] for p in timeline)
  assert all((p["diff"] == "") == (p["ops_before"] == p["ops_after"]) for p in timeline
             if p["stage"] == "jaxpr")
  assert [v["id"] for v in model["views"]] == ["jaxpr", "stablehlo", "stablehlo-passes", "hlo"]
  assert len(view(model, "stablehlo-passes")) < len(view(model, "stablehlo"))


def test_a_failing_lowering_keeps_the_jaxpr_and_the_errors_line():
  model = build_model(fails_to_lower, np.ones(3, np.float32))
  assert [v["id"] for v in model["views"]] == ["jaxpr"]
  (bad,) = lines_with(model, "jaxpr", r"explorer_unlowered")
  assert bad["locs"][0] == [0, line_of(fails_to_lower, "unlowered_p.bind")]
  (error,) = model["errors"]
  assert error["stage"] == "lower" and "explorer_unlowered" in error["message"]
  assert (error["src"], error["line"]) == (0, line_of(fails_to_lower, "unlowered_p.bind"))
  assert model["memory"] is None and "compile" not in model["timings"]


def _broken_pass(closed):
  raise RuntimeError("the explorer test's broken pass")


sj_passes.register("explorer_test_broken", _broken_pass)


def test_a_failing_pass_keeps_the_traced_jaxpr():
  model = build_model(matmul, np.ones((2, 3), np.float32), np.ones((3, 2), np.float32),
                      passes=["dce", "explorer_test_broken"])
  assert [v["id"] for v in model["views"]] == ["jaxpr"]
  assert lines_with(model, "jaxpr", r"dot_general")[0]["locs"] == [[0, line_of(matmul, "a @ b")]]
  (error,) = model["errors"]
  assert error["stage"] == "passes" and "broken pass" in error["message"]
  assert [p["name"] for p in model["passes"]] == ["dce"]


def test_a_failing_trace_raises():
  with pytest.raises(TypeError, match="matmul"):
    build_model(f, np.ones(3, np.float32), X)


def test_explore_renders_the_model(tmp_path):
  path = tmp_path / "page.html"
  html = explore(matmul, np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), path=path)
  assert path.read_text(encoding="utf-8") == html
  m = re.search(r'<script type="application/json" id="model">(.*?)</script>', html, re.S)
  assert m is not None
  assert json.loads(m.group(1).replace("<\\/", "</"))["name"] == "matmul"


# ----------------------------------------------------------------------------------------------
# The CLI: `lower`'s short errors, and no page written

@pytest.mark.parametrize("argv, code, message", [
    (["{file}"], 1, "expected FILE::FUNC"),
    (["{file}::nope"], 1, "has no function 'nope'"),
    (["{dir}/missing.py::f"], 1, "no such file"),
    (["{file}::f", "--arg", "x32[4]"], 2, "bad --arg type"),
    (["{file}::f", "--arg", "f32[3]", "--arg", "f32[2,4]"], 1, "TypeError: matmul"),
    (["{file}::f", "--arg", "f32[4,3]", "--arg", "f32[2,4]", "--passes", "nope"], 1,
     "unknown pass 'nope'"),
])
def test_cli_errors_write_no_page(tmp_path, capsys, argv, code, message):
  out = tmp_path / "page.html"
  argv = [a.format(file=__file__, dir=tmp_path) for a in argv]
  with pytest.raises(SystemExit) as exit_:
    main(["explore", *argv, "-o", str(out)])
  status = exit_.value.code
  err = capsys.readouterr().err
  if isinstance(status, str):  # (SystemExit(message): Python prints it, exit status 1)
    status, err = 1, err + status
  assert status == code
  assert message in err and err.startswith(("stablejax explore:", "usage: stablejax explore"))
  assert not out.exists()


def test_cli_writes_the_page(tmp_path, capsys):
  out = tmp_path / "page.html"
  main(["explore", f"{__file__}::matmul", "--arg", "f32[2,3]", "--arg", "f32[3,2]", "-o",
        str(out)])
  assert "wrote" in capsys.readouterr().out
  assert 'id="model"' in out.read_text(encoding="utf-8")
