# Sourced by demo.sh and test.sh (from the repository's root): vho is installed into the active
# virtual environment, else into the repository's own `.venv`, made here on first use. A system
# Python such as Debian's refuses `pip install` outside a virtual environment (PEP 668), and a
# venv keeps vho's packages (numpy, pandas, pyarrow, ...) apart from the machine's.
if [ -z "${VIRTUAL_ENV:-}" ]; then
    if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "vho needs Python 3.11 or newer as python3; found: $(python3 --version 2>&1)" >&2
        exit 2
    fi
    if [ ! -x .venv/bin/python ]; then
        echo "==> Making a virtual environment in .venv (python3 -m venv .venv)"
        python3 -m venv .venv
    fi
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi
