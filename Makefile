PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test fuzz docs bench example graphviz mpi distributed clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[test]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[bench]"
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed graphviz
	$(BIN)/python -m glassgrad.demo

test: $(VENV)/.installed-test graphviz mpi
	$(BIN)/python -m pytest -q

# torch.distributed's tests alone, under real `mpirun -n 2` and `-n 3` (tests/test_distributed.py)
distributed: $(VENV)/.installed-test mpi
	$(BIN)/python -m pytest -q tests/test_distributed.py

# a long differential fuzzing campaign (tests/test_fuzz.py; `make test` runs a short one):
# N programs drawn from SEED (`make fuzz SEED=7 N=5000`); no SEED: the derandomized programs
N ?= 20000
SEED ?=
fuzz: $(VENV)/.installed-test
	GLASSGRAD_FUZZ_SEED=$(SEED) GLASSGRAD_FUZZ_EXAMPLES=$(N) $(BIN)/python -m pytest -q \
	  tests/test_fuzz.py

# the generated pages: docs/ops.md from the op rows, docs/glass.md (and its pictures) from real runs
docs: $(VENV)/.installed graphviz
	$(BIN)/python tools/ops_table.py > docs/ops.md
	$(BIN)/python tools/glass_docs.py docs

# BENCH_ARGS="--against REV" also times glassgrad as of a commit, in the same interleaved rounds
bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

$(VENV)/.installed-examples: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[examples,test]"
	touch $@ $(VENV)/.installed $(VENV)/.installed-test

# the training example on glassgrad (curves in examples/digits.png), then the same script under
# PyTorch and glassgrad side by side (`compare` needs PyTorch: the test extra)
example: $(VENV)/.installed-examples
	$(BIN)/glassgrad run examples/digits.py
	$(BIN)/glassgrad compare examples/digits.py

# Graphviz's `dot` renders graph pictures; installed where the machine allows (root + apt-get),
# otherwise the tests that need it skip and say why.
graphviz:
	@command -v dot >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq >/dev/null && apt-get install -y -qq graphviz >/dev/null) || \
	  echo "graphviz: could not install 'dot'; graph rendering tests will skip"; }

# OpenMPI (mpirun, mpicc) where the machine allows (root + apt-get), then mpi4py built against
# it (the `distributed` extra); where either cannot be had, the distributed tests skip and say why
mpi: $(VENV)/.installed-test
	@command -v mpirun >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq >/dev/null && apt-get install -y -qq openmpi-bin libopenmpi-dev \
	  >/dev/null) || echo "mpi: could not install OpenMPI (needs root and apt-get); the" \
	  "distributed tests will skip"; }
	@$(BIN)/python -c "import mpi4py" 2>/dev/null || { command -v mpicc >/dev/null 2>&1 && \
	  $(BIN)/pip install -q -e ".[distributed]" || echo "mpi: could not install mpi4py (needs" \
	  "OpenMPI's mpicc); the distributed tests will skip"; }

clean:
	rm -rf $(VENV)
