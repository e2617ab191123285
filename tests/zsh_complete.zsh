# zsh -f tests/zsh_complete.zsh DIR LINE: the candidates zsh's own completion system offers for LINE, one per
# line, with DIR (holding the _rafale of `rafale completion zsh`) first in $fpath. It drives an interactive zsh in
# a pseudo-terminal (zsh/zpty) and records every candidate given to compadd. The markers are split in the lines
# typed ("<CA""ND>"): the terminal echoes what is typed, and a marker written whole was read back from the echo
# (a candidate '$h"; done; ...' on a loaded machine). The line is typed once zle shows its prompt, not before.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT='<P''S>'; RPROMPT=''; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __hits; builtin compadd -O __hits "$@"; local h; for h in $__hits; do print -r -- "<CA""ND>$h"; done; builtin compadd "$@"; }'
zpty -w z 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" select-prompt ""; LISTMAX=100000'
zpty -w z 'bindkey "^I" complete-word; print "<REA""DY>"'
zpty -r z line '*<READY>*'
zpty -r z line '*<PS>*'
zpty -w -n z "$2"$'\t'
zpty -w z $'\C-u print "<DO""NE>"'
out=""
while zpty -r z line; do
  out+="$line"
  [[ $out == *'<DONE>'* ]] && break
done
print -r -- "$out" | tr '\r' '\n' | grep -o '<CAND>[^<]*' | sed 's/<CAND>//' | sort -u
zpty -d z
