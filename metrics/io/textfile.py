"""Text files read in bounded chunks of whole lines: plain or gzip, NUL bytes and endless lines refused.

The one place that opens qrels and run files for reading (files are never
opened for writing), for the one reader (:mod:`metrics.io.columns`) and the
detection of a file's kind; imports neither pandas nor pyarrow.  Bytes that
are not UTF-8 are kept (trec_eval reads ids as bytes; old collections carry
Latin-1); binary data is refused at its first NUL byte.
"""

from __future__ import annotations

import contextlib
import os
import stat
import zlib
from typing import Generator, Iterator

from metrics.errors import InputError

# Bytes of input parsed between two progress calls: the vectorised split holds a few index arrays per
# line of a chunk, so 1 MiB chunks keep its memory at a few MB whatever the file's size, and a chunk
# takes a few milliseconds (about 30 ms read line by line), which bounds how long a cancellation waits.
CHUNK_BYTES = 1 << 20
# The longest line read: TREC lines are well under a kilobyte, and even a run with a 10 MB document
# id is read (in time linear in its bytes); a file without newlines, binary data or a gzip stream that
# inflates to gigabytes of one "line" is refused once a line passes this length, not read whole.
MAX_LINE_BYTES = 32 << 20

_UTF8_BOM = b"\xef\xbb\xbf"
#: the first two bytes of a gzip stream: gzip is recognised by content, not by the file's name
GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def not_regular(display) -> str | None:
    """What the input ``display`` is when it is not a regular file ("a FIFO (named pipe)", "a directory",
    "a character device" ...), else None (a regular file, or one that cannot be looked at: opening it
    says why).  Looked at with ``stat``, which never blocks, as opening a FIFO does until a writer comes."""
    try:
        mode = os.stat(display).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        text = os.fspath(display)
        if text.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/stdin")):
            return "a pipe (as <(zcat FILE.gz) gives)"
        return "a FIFO (named pipe)"
    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "not a file of data"


def check_regular(display) -> None:
    """Refuse at once, with an :class:`InputError` naming it, an input that is not a regular file: a FIFO,
    a pipe, a device (``/dev/zero``), a directory.  Only regular files are read: the reader reads gzip
    files itself, so ``<(zcat run.gz)`` is better given as ``run.gz``."""
    what = not_regular(display)
    if what is not None:
        streamed = "pipe" in what or "FIFO" in what or "device" in what
        raise InputError(
            f"not a regular file: {what}",
            path=os.fspath(display),
            expected="a regular file (save the data to a file first, or give the .gz file itself: gzip is read "
            "as it is)"
            if streamed
            else "a regular file of qrels or of a run",
        )


def open_input(display):
    """The input file ``display`` opened for reading in binary mode, once :func:`check_regular` found it
    is a regular file: how every reader opens qrels, runs and topics."""
    check_regular(display)
    return open(display, "rb")


def chunks(
    display: str, block_bytes: int | None = None, count_lines: bool = True
) -> Iterator[tuple[bytes, int, int, float]]:
    """Yield (chunk, number of its first line, its line count, fraction read); without
    ``count_lines`` both line fields are 0 (errors still name their line).

    A chunk holds whole lines and ends with a newline; a UTF-8 byte-order
    mark is removed, gzip is decompressed, NUL bytes raise :class:`InputError`.
    For a gzip file a thread decompresses the next chunk while the caller
    parses the current one (zlib releases the GIL); a plain
    file is read in the calling thread, which was faster (a 7M-line run read
    in 1.9 s rather than 2.5 s, a 250k-line one in 65 ms rather than 83 ms)
    and holds less memory: the reading thread's own allocator arena kept
    several MB of chunk buffers. Close the generator when done early
    (``contextlib.closing``): that stops the thread.
    """
    if not _is_gzip(display):
        yield from _read_chunks(display, block_bytes, count_lines)
        return
    import queue  # here: a plain file is read without a thread
    import threading

    ready: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def work():
        source = _read_chunks(display, block_bytes, count_lines)
        try:
            for item in source:
                if not put(item):
                    return
            put(None)
        except BaseException as exc:  # handed to the caller, in order
            put(exc)
        finally:
            source.close()

    thread = threading.Thread(target=work, name="trec-file-reader", daemon=True)
    try:
        thread.start()
        while True:
            item = ready.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


def _read_chunks(
    display: str, block_bytes: int | None = None, count_lines: bool = True
) -> Generator[tuple[bytes, int, int, float], None, None]:
    """What :func:`_chunks` yields, read in the calling thread.

    Each chunk is a block read whole and the end of its last line read after it (``readline``), so
    a chunk is built with one copy of its bytes at most (not the two of splitting blocks at their
    last newline and carrying the rest over), and a chunk and a half is the most held at a time.
    Without ``count_lines`` the line fields are 0, and the line of an error is counted when there is
    one (:func:`_line_at`)."""
    with open_input(display) as raw:
        size = max(os.fstat(raw.fileno()).st_size, 1)
        gz, stream = open_stream(raw)
        line = 1  # (when counting) the line the block starts with
        offset = 0  # the text's bytes before the block
        first = True

        def line_of(pos: int) -> int:
            """The line holding byte ``pos`` of the block."""
            start = line if count_lines else _line_at(display, offset)
            return start + block.count(b"\n", 0, pos)

        while True:
            with gzip_errors(gz, display):
                block = stream.read(block_bytes or CHUNK_BYTES)
            if first:
                first = False
                block = without_bom(block, display)
            if not block:
                return
            nul = first_binary_byte(block)
            if nul >= 0:  # binary data: refused at once, not only when a line ends
                raise binary_file_error(display, line_of(nul))
            if not block.endswith(b"\n"):
                with gzip_errors(gz, display):
                    rest = stream.readline(MAX_LINE_BYTES + 1)  # bounded: an endless "line" is not read whole
                started = block.rfind(b"\n") + 1
                if len(block) - started + len(rest) > MAX_LINE_BYTES and not rest.endswith(b"\n"):
                    at = line_of(len(block))
                    raise InputError(
                        f"line {at} is longer than {MAX_LINE_BYTES >> 20} MiB without ending",
                        path=display,
                        line=at,
                        expected="text lines of TREC fields (a file without newlines, or not a qrels or run file?)",
                    )
                block += rest if rest.endswith(b"\n") else rest + b"\n"  # (the file's last line may lack one)
            # counting a chunk's lines takes as long as reading it; the numpy reader has no use for them
            lines = block.count(b"\n") if count_lines else 0
            yield block, line if count_lines else 0, lines, raw.tell() / size
            line += lines
            offset += len(block)


def _line_at(display: str, offset: int) -> int:
    """The line of the file's text (its byte-order mark left out) that starts at byte ``offset``, its
    newlines counted by reading it again: for a reader that does not count them as it goes, once an
    error is found."""
    with open_input(display) as raw:
        gz, stream = open_stream(raw)
        line, left, first = 1, offset, True
        while left > 0:
            with gzip_errors(gz, display):
                block = stream.read(min(left + 3, CHUNK_BYTES))
            if first:
                first = False
                block = without_bom(block, display)
            if not block:
                break
            line += block.count(b"\n", 0, left)
            left -= min(left, len(block))
    return line


def _is_gzip(display: str) -> bool:
    try:
        with open_input(display) as f:
            return f.read(2) == GZIP_MAGIC
    except OSError:
        return False  # reading the file reports it


# ------------------------------------------------------------------ binary files: the one detection

#: how much of a file :func:`binary_file` looks at (decompressed): the first chunk a reader reads
BINARY_SNIFF_BYTES = 1 << 16


def first_binary_byte(data: bytes) -> int:
    """Where binary data starts in ``data`` (its first NUL byte, which no text of runs or qrels holds), or
    -1 for text.  The one test of "a binary file" that the readers, detection, inspection and the scoring
    in parts apply (Parquet and ranx's LZ4 files are recognised before it, by their magic bytes)."""
    return data.find(b"\0")


def binary_file_error(display, line: int | None) -> InputError:
    """The error every reader gives for a binary file ``display``, its first NUL byte at ``line``."""
    return InputError("found a NUL byte: this looks like a binary file", path=display, line=line, expected="UTF-8 text")


def check_text(chunk: bytes, first_line: int, display: str) -> None:
    """Refuse binary data (:func:`first_binary_byte`) with :func:`binary_file_error`."""
    pos = first_binary_byte(chunk)
    if pos >= 0:
        raise binary_file_error(display, first_line + chunk.count(b"\n", 0, pos))


def head(path, size: int = 65536) -> bytes:
    """The first ``size`` bytes of the file at ``path``, decompressed if it is gzip; empty if they cannot be
    read (the reader says what is wrong)."""
    with open_input(path) as raw:
        try:
            return open_stream(raw)[1].read(size)
        except (OSError, EOFError):
            return b""


def open_stream(raw):
    """(is gzip, readable stream) for a file opened in binary mode: gzip is
    recognised by its magic bytes, not by the file name."""
    gz = raw.read(2) == GZIP_MAGIC
    raw.seek(0)
    if not gz:
        return False, raw
    import gzip  # here: a plain file is read without it

    return True, gzip.GzipFile(fileobj=raw, mode="rb")


def without_bom(data: bytes, display: str) -> bytes:
    """The start of a file without its UTF-8 byte-order mark; a UTF-16 one is an error."""
    if data.startswith(_UTF16_BOMS):
        raise InputError(
            "found a UTF-16 byte-order mark",
            path=display,
            line=1,
            expected="UTF-8 text (save the file as UTF-8)",
        )
    return data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data


@contextlib.contextmanager
def gzip_errors(gz: bool, display: str):
    """Turn a failure to decompress into an InputError naming the file."""
    try:
        yield
    except (OSError, EOFError, zlib.error) as exc:
        if gz:
            raise InputError(f"the gzip data is corrupt or truncated ({exc})", path=display) from None
        raise
