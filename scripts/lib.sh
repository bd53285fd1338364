# Shared by scripts/demo and scripts/test: find Python 3.12+, make .venv, install what pyproject.toml lists.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

find_python() {
  local candidate
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3 \
      "$HOME"/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.12*/bin/python3 \
      /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || [ -x "$candidate" ] || continue
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "Assay needs Python 3.12 or newer (Django 6); none was found. Set PYTHON=/path/to/python3.12." >&2
  return 1
}

# pip warns about every configured local index it cannot read; only real messages are worth showing.
pip_install() {
  .venv/bin/python -m pip install --quiet "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
}

ensure_venv() {
  local extras="$1" stamp
  if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then
    rm -rf .venv
    "$(find_python)" -m venv .venv
  fi
  # Reinstall only when pyproject.toml changed since the last install.
  stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-${extras:-base}"
  if [ ! -f "$stamp" ]; then
    pip_install --upgrade pip
    pip_install ".${extras:+[$extras]}"
    rm -f .venv/.installed-*
    touch "$stamp"
  fi
  export PATH="$ROOT/.venv/bin:$PATH"
}
