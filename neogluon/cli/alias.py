"""``neogluon alias install | remove | status``: ``import mxnet`` in this environment.

``install`` writes a ``.pth`` file into the environment's site-packages: every Python
started in the environment (notebooks, pytest, third-party packages) then resolves
``import mxnet`` and every ``mxnet.*`` module to neogluon, as long as no real MXNet is
installed there (a real MXNet always wins; ``install`` refuses while one is present).
``remove`` deletes the file; ``status`` says which package ``import mxnet`` gives.
"""
import os
import sysconfig

import neogluon_alias

from .errors import CLIError


def add_arguments(parser):
    parser.add_argument("action", choices=["install", "remove", "status"],
                        help="install or remove the hook, or say what 'import mxnet' gives")
    parser.add_argument("--site-dir", metavar="DIR", default=None,
                        help="the site-packages directory to use (default: this environment's, %s)"
                             % sysconfig.get_paths()["purelib"])


def status_text(site_dir):
    """One line per fact: the hook file, and what ``import mxnet`` gives in a new process."""
    import neogluon
    pth = neogluon_alias.pth_path(site_dir)
    real = neogluon_alias.find_real_mxnet()
    lines = ["alias hook: %s" % (pth if os.path.exists(pth) else "not installed (in %s)" % site_dir)]
    if real:
        lines.append("import mxnet gives: the real MXNet at %s%s" % (
            real, " (the alias hook stays unused while it is installed)" if os.path.exists(pth) else ""))
    elif os.path.exists(pth):
        lines.append("import mxnet gives: neogluon %s (MXNet %s API, mxnet.__version__ == %r) from %s" % (
            neogluon.__version__, neogluon.mxnet_version, neogluon.mxnet_version,
            os.path.dirname(neogluon.__file__)))
    else:
        lines.append("import mxnet gives: ModuleNotFoundError (no MXNet installed; "
                     "'neogluon alias install' makes it neogluon)")
    return "\n".join(lines)


def run(args):
    site_dir = args.site_dir or sysconfig.get_paths()["purelib"]
    pth = neogluon_alias.pth_path(site_dir)
    if args.action == "install":
        real = neogluon_alias.find_real_mxnet()
        if real:
            raise CLIError("a real MXNet is installed (%s): 'import mxnet' gives it, and neogluon does not "
                           "shadow it; uninstall it first, or run scripts with 'neogluon run'" % real, code=1)
        try:
            os.makedirs(site_dir, exist_ok=True)
            with open(pth, "w") as f:
                f.write(neogluon_alias.PTH_LINE)
        except OSError as err:
            raise CLIError("cannot write %s: %s" % (pth, err.strerror or err), code=1) from None
        print("installed %s" % pth)
    elif args.action == "remove":
        if os.path.exists(pth):
            try:
                os.remove(pth)
            except OSError as err:
                raise CLIError("cannot remove %s: %s" % (pth, err.strerror or err), code=1) from None
            print("removed %s" % pth)
        else:
            print("no alias hook in %s" % site_dir)
    print(status_text(site_dir))
    return 0
