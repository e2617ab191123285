"""Integration tests: rafale completion: the bash, zsh and fish scripts, made from the option table."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def completion_from_the_option_table():
    p = subprocess.run([RAFALE, "completion", "bash"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "complete -F _rafale rafale" in p.stdout, "completion: a bash script")
    script = os.path.join(TMP, "rafale.bash")
    with open(script, "w") as fh:
        fh.write(p.stdout)

    def complete(*words):
        words = ["rafale"] + list(words)
        cmd = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _rafale; printf '%%s\\n' \"${COMPREPLY[@]}\""
               % (script, " ".join("'%s'" % w for w in words), len(words) - 1))
        r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30, cwd=TMP)
        return r.stdout.split()

    check(complete("--thr") == ["--threads"], "completion: rafale --thr -> --threads (%s)" % complete("--thr"))
    c = complete("compare", "--")
    check("--repeat" in c and "--pin" in c and "--server-cpus" in c and "--check" not in c and "--threads" not in c,
          "completion: rafale compare -- gives compare's options only (%s)" % c)
    check(complete("serve", "--li") == ["--listen"], "completion: serve's own")
    check(sorted(complete("--order", "se")) == ["sequential", "session"], "completion: an option's values")
    check(sorted(complete("co")) == ["compare", "completion"], "completion: subcommands")
    os.makedirs(os.path.join(TMP, "cmpl"), exist_ok=True)
    open(os.path.join(TMP, "cmpl", "plan.targets"), "w").close()
    check(complete("--targets", "cmpl/pl") == ["cmpl/plan.targets"], "completion: files where an option takes one")
    check(complete("-e", "cmpl/pl") == ["cmpl/plan.targets"], "completion: a short option's file")
    # --order=se: bash breaks the word at '=' into '--order' '=' 'se'.
    check(sorted(complete("--order", "=", "se")) == ["sequential", "session"] and
          len(complete("--order", "=")) == 3, "completion: --opt=value (%s)" % complete("--order", "="))
    # A value with no words to offer (a number, a duration, a percentage) gets nothing: not the subcommands, not
    # files (-c sweep, --duration=sweep); a version is a word.
    check(complete("-c", "") == [] and complete("--duration", "=", "") == [] and complete("serve", "-t", "") == [] and
          complete("diff", "--threshold", "") == [] and complete("--tls-version", "") == ["1.2", "1.3"],
          "completion: a free value gets nothing (%s)" % complete("-c", ""))
    for shell in ("zsh", "fish"):
        p = subprocess.run([RAFALE, "completion", shell], capture_output=True, text=True, timeout=30)
        check(p.returncode == 0 and (p.stdout.startswith("#compdef rafale") if shell == "zsh" else
                                     "complete -c rafale -n '__fish_seen_subcommand_from compare' -l repeat" in p.stdout),
              "completion: %s" % shell)
        if shutil.which(shell):
            path = os.path.join(TMP, "rafale." + shell)
            with open(path, "w") as fh:
                fh.write(p.stdout)
            r = subprocess.run([shell, "-n", path], capture_output=True, text=True, timeout=30)
            check(r.returncode == 0, "completion: %s parses it (%s)" % (shell, r.stderr[:200]))
            if shell == "fish":
                def fcomplete(line):
                    r = subprocess.run(["fish", "--no-config", "-c", "source %s; complete -C '%s'" % (path, line)],
                                       capture_output=True, text=True, timeout=30)
                    return sorted(x.split("\t")[0] for x in r.stdout.splitlines())
                check(fcomplete("rafale --thr") == ["--threads"] and
                      fcomplete("rafale http://127.0.0.1/ --thr") == ["--threads"],
                      "completion: fish, before and after the URL (%s)" % fcomplete("rafale http://127.0.0.1/ --thr"))
                check(fcomplete("rafale --arrival ") == ["poisson", "uniform"] and fcomplete("rafale -c ") == [] and
                      fcomplete("rafale --hel") == ["--help"] and fcomplete("rafale-mpi --thr") == ["--threads"],
                      "completion: fish, values without files, rafale-mpi (%s)" % fcomplete("rafale --arrival "))
                c = fcomplete("rafale compare --")
                check("--repeat" in c and "--check" not in c and fcomplete("rafale completion ") ==
                      ["bash", "fish", "zsh"] and fcomplete("rafale report --ht") == ["--html"],
                      "completion: fish, a subcommand's own (%s)" % c[:5])
            else:
                zdir = os.path.join(TMP, "zfunc")
                os.makedirs(zdir, exist_ok=True)
                with open(os.path.join(zdir, "_rafale"), "w") as fh:
                    fh.write(p.stdout)
                zsh_script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                          "zsh_complete.zsh")

                def zcomplete(line):
                    r = subprocess.run(["zsh", "-f", zsh_script, zdir, line], capture_output=True, text=True,
                                       timeout=60)
                    return r.stdout.split()
                check(zcomplete("rafale --thr") == ["--threads"] and
                      zcomplete("rafale http://127.0.0.1/ --thr") == ["--threads"],
                      "completion: zsh from $fpath, rafale --thr (%s)" % zcomplete("rafale --thr"))
                c = zcomplete("rafale compare --")
                check("--repeat" in c and "--pin" in c and "--check" not in c,
                      "completion: zsh, compare's options (%s)" % c[:6])
                check(zcomplete("rafale --order ") == ["random", "sequential", "session"] and
                      zcomplete("rafale serve --li") == ["--listen"] and
                      zcomplete("rafale completion ") == ["bash", "fish", "zsh"],
                      "completion: zsh, values and subcommands (%s)" % zcomplete("rafale --order "))
                # Repeatable options again; switches are switches (--help took a value, and hid what followed);
                # the small subcommands' options come from the option table too (--html=x is taken as --html x).
                check(zcomplete("rafale -H 'a: b' --hea") == ["--header"] and
                      "--connect-to" in zcomplete("rafale --connect-to a:1:b:2 --conn") and
                      zcomplete("rafale --version --thr") == ["--threads"] and
                      zcomplete("rafale --tls-version ") == ["1.2", "1.3"] and
                      "'--help[" in p.stdout and "'--help=" not in p.stdout and
                      "'--html=[write the report as a self-contained HTML page]:FILE:_files'" in p.stdout,
                      "completion: zsh, repeatable options, switches, own flags")
                r = subprocess.run(["zsh", "-f", "-c", 'autoload -U compinit; compinit -u -D; source %s; '
                                    'print $_comps[rafale]' % path], capture_output=True, text=True, timeout=30)
                check(r.stdout.strip() == "_rafale", "completion: zsh, evaluated after compinit (%r)" % r.stdout)
        else:
            print("  (%s not installed: its completion not run)" % shell)
    p = subprocess.run([RAFALE, "completion", "tcsh"], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and one_line(p.stderr, "give bash, zsh or fish"), "completion: another shell, one line")
