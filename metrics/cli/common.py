"""What every command line shares: argparse's layout and exit status, -l, --version, and the one place
where a failure becomes one line and an exit status instead of a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING

from metrics.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OUTPUT, EXIT_USAGE, InputError, WorkerDied

if TYPE_CHECKING:
    from metrics.engine.settings import Settings

__all__ = [
    "read_path",
    "told_nothing_scored",
    "STDIN",
    "stdin_as_file",
    "UsageError",
    "Formatter",
    "Parser",
    "VersionAction",
    "ListMeasuresAction",
    "add_level_option",
    "settings_of_args",
    "checked_measures",
    "guarded",
]


STDIN = "standard input"


class UsageError(ValueError):
    """Options or measure names that cannot be used; reported before any file is read."""


class Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found without importing shutil (which brings bz2 and lzma
    in: a few milliseconds of every call, for a width only --help uses)."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:  # shutil.get_terminal_size's rule: $COLUMNS, else the terminal, else 80
            try:
                width = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                try:
                    if sys.__stdout__ is None:  # (no standard output: pythonw)
                        raise ValueError
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    width = 80
            width -= 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse's parser with the project's help layout and its exit status for a usage error."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # argparse exits with 2, which is the bad-input status here
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class VersionAction(argparse.Action):
    """--version, looked up only when asked for (reading the installed metadata costs more than scoring a small run)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from metrics.report.provenance import version

        print(f"ir-eval {version()} (trec_eval 10.0 measures)")
        parser.exit()


class ListMeasuresAction(argparse.Action):
    """--list-measures: every name -m takes (metrics.measures.reference.name_list), one a line."""

    def __call__(self, parser, namespace, values, option_string=None):
        from metrics.measures.reference import name_list

        try:
            for name, meaning in name_list():
                print(f"{name:<22} {meaning}")
            sys.stdout.flush()
        except BrokenPipeError:  # piped into head: stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        parser.exit()


def split_measures(values) -> list[str]:
    """``-m`` values with several names in one (ir_measures' ``'AP nDCG@10 P@10'``) split at spaces
    that are outside parentheses, braces and quotes; trec_eval's names hold no spaces."""
    from metrics.measures.irm_syntax import split_top_level

    return [part for value in values or () for part in split_top_level(value, str.isspace)]


def add_level_option(parser) -> None:
    """trec_eval's -l, for ir-eval and ir-eval --inspect alike."""
    parser.add_argument(
        "-l",
        dest="level",
        type=int,
        default=1,
        metavar="N",
        help="minimum relevance grade counted as relevant (default 1)",
    )


def guarded(work, debug: bool) -> int:
    """Run ``work``; no traceback reaches the user (but with --debug), whatever happens."""
    try:
        return work()
    except KeyboardInterrupt:
        print("ir-eval: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # output piped into head and the like: stop quietly, and keep Python from complaining at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        if debug:
            raise
        from metrics.io.fileio import output_path

        written = output_path(exc)
        if written is not None:  # a file of output (-o FILE): not an input problem
            print(f"ir-eval: cannot write the output {written}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_OUTPUT
        if exc.filename:
            print(f"ir-eval: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_INPUT
        print(f"ir-eval: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_OUTPUT
    except MemoryError:
        print("ir-eval: not enough memory", file=sys.stderr)
        return EXIT_INTERNAL
    except WorkerDied as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # noqa: BLE001 - the one place that turns a bug into one line
        if debug:
            raise
        print(f"ir-eval: internal error: {type(exc).__name__}: {exc} (run with --debug for details)", file=sys.stderr)
        return EXIT_INTERNAL


@contextmanager
def stdin_as_file():
    """Standard input saved to a temporary file (the readers take paths)."""
    import tempfile  # here: reading files does without it

    fd, path = tempfile.mkstemp(prefix="ir-eval-stdin-")
    try:
        with os.fdopen(fd, "wb") as f:
            while chunk := sys.stdin.buffer.read(1 << 20):
                f.write(chunk)
        yield path
    finally:
        os.unlink(path)


def read_path(path: str, reader):
    """``reader(path)``, or for ``-`` ``reader`` of standard input saved to a file, its errors naming
    standard input: how every command line reads the files it is given."""
    if path != "-":
        return reader(path)
    with stdin_as_file() as tmp:
        try:
            return reader(tmp)
        except InputError as exc:  # the user gave standard input, not a temporary file
            raise InputError(exc.message, path=STDIN, line=exc.line, expected=exc.expected) from None


def told_nothing_scored(ev) -> bool:
    """Print the evaluation's warnings; True (after saying so) when no query was scored, as trec_eval
    refuses to print an empty evaluation."""
    for message in ev.warnings:
        print(f"ir-eval: warning: {message}", file=sys.stderr)
    if all(not ev.query_ids[r] for r in ev.runs):
        print("ir-eval: no queries with both results and relevance info", file=sys.stderr)
        return True
    return False


def unreadable(exc: OSError | InputError, hint: str = "") -> int:
    """Say in one line why a file given could not be read (a missing one by its name); the input status."""
    if isinstance(exc, FileNotFoundError):
        from metrics.io.datasets import dataset_hint

        message = f"{exc.filename}: no such file{dataset_hint(str(exc.filename))}"
    else:
        message = f"{exc}{hint}"
    print(f"ir-eval: {message}", file=sys.stderr)
    return EXIT_INPUT


def settings_of_args(args) -> Settings:
    """The one :class:`metrics.Settings` of trec_eval's options a command was given (``-l``, ``-c``, ``-M``,
    ``-J``, ``-N``; a command without one of them has trec_eval's default for it): what every command and
    every way of scoring takes (in this process, ``--jobs``, ``--dask``)."""
    from metrics.engine.settings import Settings

    return Settings(
        relevance_level=getattr(args, "level", 1),
        complete=getattr(args, "complete", False),
        max_docs=getattr(args, "max_docs", None),
        judged_only=getattr(args, "judged_only", False),
        num_docs_in_coll=getattr(args, "num_docs", 0),
    )


def checked_measures(values: list[str]) -> list[str]:
    """The names of ``-m`` values (several in one value, as ir-eval takes them: ``'map P.5'``), each parsed
    once so that a name no measure has is refused before any file is read (ValueError, naming it)."""
    from metrics.measures import parse_measures

    names = split_measures(values)
    parse_measures(names)
    return names
