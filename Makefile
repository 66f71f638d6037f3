# baton — the two commands a new engineer needs:
#   make demo   builds everything and runs the short latency comparison (baton vs peers)
#   make test   builds everything and runs all tests (unit, stress, sanitizers, lint)
# Both install what they need first (Debian packages, the iceoryx2 peer through cargo);
# installing is idempotent.

BUILD ?= build
JOBS ?= $(shell nproc)
# Debug info as line tables only (-g1): backtraces and profiles keep file:line, and the build is
# about a third faster than with -g (CI time).
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATON_BUILD_PYTHON=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG' -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g1 -DNDEBUG'

.PHONY: all deps peers build test unit stress python sanitize lint demo bench suite clean-shm format

all: build

# Everything the build links against is installed here, before the first configure: a peer
# whose library came later (ROS 1's roscpp, say) would be silently left out of that build.
deps:
	@scripts/stage.sh deps sh -c 'scripts/install-deps.sh && scripts/install-accel-deps.sh && \
	  scripts/install-python.sh && scripts/install-cuda-wheels.sh && scripts/install-ros-wheels.sh && \
	  scripts/install-ros1.sh' 

# The peers measured beside baton that are not libraries of the build: iceoryx2 (cargo).
peers: deps
	@scripts/install-bench-peers.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >/dev/null
	@scripts/stage.sh build ninja -C $(BUILD) -j $(JOBS)
	@scripts/install-baton-command.sh $(BUILD)

unit: build
	@scripts/stage.sh unit ctest --test-dir $(BUILD) -L 'unit|example' --output-on-failure -j 2

stress: build
	@scripts/stage.sh stress ctest --test-dir $(BUILD) -L stress --output-on-failure

# Python API and CLI, driven as a user would (subprocesses, real topics).
python: build
	@PYTHONPATH=$(BUILD)/python scripts/stage.sh python .venv/bin/pytest -q python/tests

sanitize: deps
	@scripts/stage.sh sanitize scripts/sanitize.sh

lint: deps
	@scripts/stage.sh lint sh -c 'scripts/check-layers.sh && scripts/check-format.sh && \
	  .venv/bin/python scripts/check_links.py && \
	  .venv/bin/ruff check python bench tests scripts && \
	  .venv/bin/ruff format --check python bench tests scripts' 

# All tests. The last stage prints ctest's summary line.
test: lint sanitize stress python unit

# The main job: the experiment suite's quick version (about 5.5 min on 2 vCPUs), report in
# out/report.md.
demo: build peers
	@.venv/bin/python bench/suite/run.py --suite quick

# The core latency / rate / throughput comparison (minutes); BENCHMARKS.md quotes its report.
bench: build peers
	@bench/run_all.sh

# The full experiment suite (long).
suite: build peers
	@.venv/bin/python bench/suite/run.py --suite all

format:
	@find include src tests bench examples tools -name '*.cpp' -o -name '*.hpp' 2>/dev/null | xargs clang-format -i

# Removes this user's baton segments whose owners are gone (never a live one).
clean-shm: build
	@$(BUILD)/baton-clean 2>/dev/null || true
