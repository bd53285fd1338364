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

# Set by scripts/demo before ensure_venv: said before installing, and pip's output is then condensed to a
# progress line instead of silence (scripts/test installs quietly).
INSTALL_MESSAGE=""

# pip warns about every configured local index it cannot read; only real messages are worth showing.
pip_install() {
  if [ -z "$INSTALL_MESSAGE" ]; then
    .venv/bin/python -m pip install --quiet "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" || true; }
    return
  fi
  # pip's whole output goes to a log, whose end is shown when pip fails.
  local log=.venv/pip-install.log status=0
  .venv/bin/python -m pip install --progress-bar off "$@" 2>&1 | tee "$log" | pip_progress || status=$?
  if [ "$status" -ne 0 ]; then
    printf '\npip failed (exit %s); the end of its output (%s):\n' "$status" "$ROOT/$log" >&2
    grep -v "is ignored: it is neither a file nor a directory" "$log" | tail -n 25 >&2
    return "$status"
  fi
}

# pip's output condensed: the packages found (on a terminal a counter rewritten in place, elsewhere a dot each),
# then the install step.
pip_progress() {
  local line name n=0
  while IFS= read -r line; do
    case "$line" in
      Collecting\ *|Requirement\ already\ satisfied:\ *)
        n=$((n + 1))
        name="${line#Collecting }"; name="${name#Requirement already satisfied: }"; name="${name%% *}"
        if [ -t 1 ]; then printf '\r  packages: %3d (%s)\033[K' "$n" "${name:0:40}"
        else printf '.'; fi ;;
      "Installing collected packages:"*) printf '\n  installing %d packages…\n' "$n" ;;
      "Successfully installed"*) echo "  done" ;;
    esac
  done
  return 0
}

ensure_venv() {
  local extras="$1" stamp done_stamp
  if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then
    rm -rf .venv
    [ -z "$INSTALL_MESSAGE" ] || echo "Creating .venv"
    "$(find_python)" -m venv .venv
  fi
  # Reinstall only when pyproject.toml changed since the last install. Without extras, an install with extras
  # (scripts/test's) holds everything already.
  stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-${extras:-base}"
  done_stamp="$stamp"
  if [ -z "$extras" ] && [ ! -f "$stamp" ]; then
    done_stamp="$(ls "${stamp%-base}"-* 2>/dev/null | head -1 || true)"
  fi
  if [ -z "$done_stamp" ] || [ ! -f "$done_stamp" ]; then
    [ -z "$INSTALL_MESSAGE" ] || echo "$INSTALL_MESSAGE"
    INSTALL_MESSAGE="" pip_install --upgrade pip  # quick, and not worth a progress line
    pip_install ".${extras:+[$extras]}"
    rm -f .venv/.installed-*
    touch "$stamp"
  fi
  export PATH="$ROOT/.venv/bin:$PATH"
}
