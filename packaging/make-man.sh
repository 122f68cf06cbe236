#!/usr/bin/env bash
# make-man.sh HELP2MAN PROGRAM OUT: PROGRAM's man page from its --help and --version
# (help2man). For rnnwb, a section per command from `rnnwb COMMAND --help`, the commands being
# those `rnnwb --help` lists.
set -euo pipefail
help2man=$1 program=$2 out=$3
name=$(basename "$program")
include=$(mktemp)
trap 'rm -f "$include"' EXIT
case $name in
  rnnwb)
    description="analyse and train generalized recurrent networks"
    {
      echo "[COMMANDS]"
      # The Subcommands block of --help: "  NAME   description" lines up to the next blank one.
      "$program" --help | awk '/^(SUBCOMMANDS|Subcommands):/ {on = 1; next} on && NF == 0 {exit} on {print $1}' |
        while read -r command; do
          echo ".SS \"rnnwb $command\""
          echo ".nf"
          "$program" "$command" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
          echo ".fi"
        done
      echo "[SEE ALSO]"
      echo "rnnwb-gui(1). The guides are in /usr/share/doc/rnnwb (docs/ of the source tree)."
    } >"$include" ;;
  rnnwb-gui)
    description="the RNN Workbench window: draw, analyse and train recurrent networks"
    printf '[SEE ALSO]\nrnnwb(1)\n' >"$include" ;;
  *) echo "make-man.sh: unknown program $name" >&2; exit 2 ;;
esac
# The version alone: rnnwb --version's second line names this machine's CPU kernels.
version=$("$program" --version | head -1 | awk '{print $NF}')
"$help2man" --no-info --name="$description" --section=1 \
  --version-string="$version" \
  --include="$include" --output="$out" "$program"
