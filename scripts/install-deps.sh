#!/bin/sh
# Install what `make book` and `book/check.sh` need, from Debian packages.
# Non-interactive and idempotent: packages already installed are skipped.
# Runs as root (CI) or through sudo; prints every command it runs.
set -eu

# tool (what it is for) -> Debian package
PACKAGES="
pandoc
texlive-xetex
texlive-latex-recommended
texlive-latex-extra
texlive-fonts-recommended
lmodern
fonts-dejavu-core
fonts-dejavu-extra
gnuplot-nox
librsvg2-bin
poppler-utils
chromium
"

missing=""
for p in $PACKAGES; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        echo "already installed: $p"
    else
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-deps: everything the book needs is installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: error: apt-get not found; install these packages with your system's" >&2
    echo "package manager:$missing" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install-deps: error: run as root (or install sudo) to install:$missing" >&2
        exit 1
    fi
fi

run() { echo "+ $*"; "$@"; }
export DEBIAN_FRONTEND=noninteractive
run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086  # word splitting of the package list is intended
run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
echo "install-deps: installed:$missing"
