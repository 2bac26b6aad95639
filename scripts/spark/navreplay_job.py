"""navreplay on Apache Spark: the same audit as one machine, for logs one machine cannot hold.

One plan, one map, one shuffle, one reduce, one write. navreplay does all the work on lines
(``navreplay partition``: route, shared, audit); Spark places the tasks, moves blocks of bytes
between them, retries what fails and writes the outputs; the job's JVM part
(``java/NavreplayPipes.java``, compiled once against Spark's jars) runs navreplay in the tasks
and hands its blocks to Spark, with no Python worker; Python plans and glues on the driver
(``navreplay_tasks.py``: the command lines).

- **Plan** (driver): the input files, listed as navreplay lists them, cut into splits: a plain
  file into byte ranges of about --split-size (a line belongs to the split it starts in), a
  gzip file whole. Partitions of about --partition-size of log each.
- **Map** (a task per split): ``navreplay partition route`` sends each line, as located input,
  to the partition of its session in blocks of up to 1 MB, and each event id to a ledger bucket.
- **Shuffle**: Spark moves the blocks to their partitions, one record per block.
- **Reduce**: the ledger buckets first (``navreplay partition shared``: the sessions that share
  an event id with another partition's, usually none, are set apart and folded together), with
  each split's line count, which turns the lines' numbers in their split into numbers in their
  file; then a task per partition runs ``navreplay partition audit``.
- **Write**: Spark sorts the partitions' outputs into navreplay's order (by session, the lines
  without one first by file and line) and writes them:

    DIR/findings/           NDJSON part files; concatenated in part order they are byte for byte
                            what ``navreplay audit --format ndjson`` prints for the same inputs
    DIR/findings_parquet/   the same findings as Parquet (expected, found, explanation as JSON text)
    DIR/sessions/           NDJSON part files, as ``navreplay sessions --format ndjson``
    DIR/quarantine/         every invalid line, as ``navreplay audit --quarantine``
    DIR/summary.json        the merged summary, as ``navreplay audit --summary``

Entry points: ``navreplay_audit.py`` and ``navreplay_sessions.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import sys
import time
from typing import Iterator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import navreplay_tasks as tasks  # noqa: E402
from navreplay_tasks import InputFile, Plan  # noqa: E402

DEFAULT_MAX_LINE_BYTES = 1_048_576
MB = tasks.MB

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

# spark-submit options that take a value, and those that do not (Spark 3.4-4.x).
SPARK_SUBMIT_VALUE_OPTIONS = {
    "--master", "--deploy-mode", "--class", "--name", "--jars", "--packages", "--exclude-packages",
    "--repositories", "--py-files", "--files", "--archives", "--conf", "-c", "--properties-file",
    "--driver-memory", "--driver-java-options", "--driver-library-path", "--driver-class-path",
    "--executor-memory", "--proxy-user", "--driver-cores", "--total-executor-cores", "--executor-cores",
    "--num-executors", "--principal", "--keytab", "--queue",
}
SPARK_SUBMIT_FLAGS = {"--verbose", "-v", "--supervise"}


class UsageError(Exception):
    """A command-line mistake: exit status 2, like navreplay."""


def split_spark_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separates spark-submit options (which pass through to Spark) from the job's own."""
    spark: list[str] = []
    job: list[str] = []
    index = 0
    while index < len(argv):
        argument = argv[index]
        if argument == "--":
            job.extend(argv[index:])
            break
        name = argument.split("=", 1)[0]
        if name in SPARK_SUBMIT_VALUE_OPTIONS:
            if "=" in argument and argument.startswith("--"):
                spark.extend([name, argument.split("=", 1)[1]])
            else:
                if index + 1 >= len(argv):
                    raise UsageError(f"{argument} needs a value")
                spark.extend([argument, argv[index + 1]])
                index += 1
        elif argument in SPARK_SUBMIT_FLAGS:
            spark.append(argument)
        else:
            job.append(argument)
        index += 1
    return spark, job


def size_argument(text: str) -> int:
    """A size as navreplay takes it: 1048576, 512K, 128M, 2G."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]?)B?\s*", text.upper())
    if not match or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of bytes, or of K, M or G (512K, 128M, 2G)")
    return max(1, int(float(match.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2)]))


def build_parser(mode: str) -> argparse.ArgumentParser:
    script = "navreplay_audit.py" if mode == "audit" else "navreplay_sessions.py"
    what = "findings (NDJSON and Parquet), sessions, quarantine and summary" if mode == "audit" else \
        "sessions, quarantine and summary"
    parser = argparse.ArgumentParser(
        prog=script,
        description=(
            f"Run `navreplay {mode}` on Apache Spark, partitioned by session: writes {what} under --output. "
            "Any spark-submit option (--master, --conf k=v, --executor-memory, --num-executors, --files, ...) "
            "passes through to Spark."),
        epilog=(
            "Exit status, as navreplay: 0 nothing at or above --fail-on; 1 findings at or above it; "
            "2 a usage error or an input that could not be read completely (the other inputs are still audited); "
            "3 the job itself failed (Spark or navreplay), its outputs are incomplete.\n\n"
            f"Example:\n  {script} --navreplay .build/release/navreplay --output out/ --master 'local[2]' "
            "'logs/2026-11-20/*.ndjson.gz'"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="Log files (.ndjson, .ndjson.gz), directories (their *.ndjson and *.ndjson.gz files, "
                             "recursively), or globs; local paths, or URIs (file://, s3a://, gs://, hdfs://).")
    parser.add_argument("--navreplay", required=True, metavar="PATH",
                        help="The navreplay binary: a local path or URI (the job ships it to the executors), "
                             "or the name of a file already shipped with spark-submit --files.")
    parser.add_argument("--output", required=True, metavar="DIR", help="Where the outputs go (local path or URI).")
    parser.add_argument("--overwrite", action="store_true", help="Replace the outputs of an earlier run in --output.")
    parser.add_argument("--model", metavar="model.json",
                        help="The navigation model for every input (local path or URI). Default: the nearest "
                             "model.json of each file under a directory argument, else the built-in PoC model.")
    parser.add_argument("--split-size", type=size_argument, default=128 * MB, metavar="SIZE",
                        help="Plain files are read in splits of about this size (default 128M; a gzip file is one split).")
    parser.add_argument("--partition-size", type=size_argument, default=96 * MB, metavar="SIZE",
                        help="Sessions are folded in partitions of about this much log (default 96M), each by one "
                             "navreplay process within --memory-limit.")
    parser.add_argument("--partitions", type=int, default=0, metavar="N",
                        help="Partitions to fold in, overriding --partition-size.")
    parser.add_argument("--memory-limit", type=size_argument, default=256 * MB, metavar="SIZE",
                        help="Each navreplay process's --memory-limit (default 256M): its memory beside the executor's.")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="Each navreplay process's --jobs (default 1: Spark runs a task on each core).")
    parser.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES, metavar="N",
                        help="Lines longer than this many bytes are invalid (navreplay's --max-line-bytes).")
    parser.add_argument("--fail-on", choices=["error", "warning", "never"], default="error" if mode == "audit" else "never",
                        help="Exit 1 when a finding is at or above this severity (default: "
                             + ("error)." if mode == "audit" else "never, as navreplay sessions)."))
    if mode == "audit":
        parser.add_argument("--max-findings-per-session", type=int, default=10_000, metavar="N",
                            help="Keep at most this many findings per session (the rest are counted in the summary).")
        parser.add_argument("--explain", action="store_true",
                            help="Add the witness event and the state before and after to each finding.")
        parser.add_argument("--no-sessions", action="store_true", help="Do not write DIR/sessions/.")
        parser.add_argument("--allow-empty", action="store_true",
                            help="Accept inputs that hold no line (empty files, or only blank lines): exit 0. Without it "
                                 "they end with exit status 2, as navreplay audit.")
    parser.add_argument("-q", "--quiet", action="store_true", help="No summary on standard error.")
    parser.add_argument("--debug-read-by-spark", action="store_true",
                        help="For tests only: read file:// URIs as the files of other file systems are, whole, "
                             "through Hadoop's FileSystem.")
    parser.add_argument("--debug-split-sessions", action="store_true",
                        help="For tests only: route odd splits with another partition count and set no session "
                             "apart, which breaks sessions that span splits (the results must then differ from navreplay's).")
    parser.add_argument("--debug-plain-lines", action="store_true",
                        help="For tests and benches: shuffle the located lines as they are, not in shorthand.")
    return parser




# ---------------------------------------------------------------------------------------------
# Inputs: what navreplay would read for the same arguments
# ---------------------------------------------------------------------------------------------

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_GLOB = re.compile(r"[*?\[{]")


def _join(directory: str, relative: str) -> str:
    """NSString.appendingPathComponent, as navreplay joins a directory argument and a file under it."""
    if not directory:
        return relative
    return directory + relative if directory.endswith("/") else directory + "/" + relative


def _wanted(name: str) -> bool:
    return name.endswith(".ndjson") or name.endswith(".ndjson.gz")


class Inputs:
    """Resolves arguments on the driver: local paths with the OS, URIs with Hadoop's FileSystem.
    navreplay opens a local path or a file:// URI itself (a split at a time); a task reads a file
    of another file system whole through Hadoop's FileSystem into navreplay."""

    def __init__(self, spark, read_by_spark: bool = False):
        self.jvm = spark.sparkContext._jvm
        self.conf = spark.sparkContext._jsc.hadoopConfiguration()
        self.read_by_spark = read_by_spark

    def _hadoop_path(self, text: str):
        return self.jvm.org.apache.hadoop.fs.Path(text)

    def resolve(self, arguments: list[str], explicit_model: str | None) -> list[InputFile]:
        files: list[InputFile] = []
        seen: set[str] = set()
        for argument in arguments:
            if argument == "-":
                raise UsageError("the Spark job cannot read standard input; give files, directories or globs")
            found = self._resolve_remote(argument) if _SCHEME.match(argument) else self._resolve_local(argument)
            for item in found:
                if item.path not in seen:
                    seen.add(item.path)
                    files.append(item)
        for item in files:
            if explicit_model is not None:
                item.model_path = None
            if "\n" in item.path or "\r" in item.path:
                raise UsageError(f"an input path holds a line break, which navreplay's paths file cannot list: {item.path!r}")
        return files

    def _resolve_local(self, local: str) -> Iterator[InputFile]:
        if os.path.isdir(local):
            yield from self._local_directory(local, local)
            return
        if not os.path.exists(local) and _GLOB.search(local):
            import glob as globbing

            matches = sorted(globbing.glob(local))
            if not matches:
                yield InputFile(path=local, uri="", error=("not_found", "no such file"))
            for match in matches:
                yield from (self._local_directory(match, match) if os.path.isdir(match) else [self._local_file(match)])
            return
        yield self._local_file(local)

    @staticmethod
    def _local_file(path: str, shown: str | None = None) -> InputFile:
        shown = shown or path
        try:
            size = os.stat(path).st_size
            with open(path, "rb"):
                pass
        except FileNotFoundError:
            return InputFile(path=shown, uri="", error=("not_found", "no such file"))
        except IsADirectoryError:
            return InputFile(path=shown, uri="", error=("is_directory", "is a directory"))
        except OSError as error:
            return InputFile(path=shown, uri="", error=("unreadable", f"cannot be read: {error.strerror}"))
        return InputFile(path=shown, uri=shown, local=os.path.abspath(path), size=size)

    def _local_directory(self, shown: str, directory: str) -> Iterator[InputFile]:
        found = []
        for root, folders, names in os.walk(directory, followlinks=True):
            folders.sort()
            found += [os.path.relpath(os.path.join(root, name), directory) for name in names if _wanted(name)]
        for relative in sorted(found):
            item = self._local_file(_join(shown, relative))
            item.model_path = _nearest_model(shown, relative, lambda candidate: os.path.isfile(_join(shown, candidate)))
            yield item

    def _remote_file(self, shown: str, uri: str, size: int, model: str | None = None) -> InputFile:
        if uri.startswith("file:") and not self.read_by_spark:
            local = self._hadoop_path(uri).toUri().getPath()
            item = self._local_file(local, shown)
            item.uri, item.model_path = uri, model
            return item
        return InputFile(path=shown, uri=uri, size=size, model_path=model)

    def _resolve_remote(self, argument: str) -> Iterator[InputFile]:
        path = self._hadoop_path(argument)
        fs = path.getFileSystem(self.conf)
        statuses = fs.globStatus(path) if _GLOB.search(argument) else None
        if statuses is None:
            if not fs.exists(path):
                yield InputFile(path=argument, uri="", error=("not_found", "no such file"))
                return
            status = fs.getFileStatus(path)
            if status.isDirectory():
                yield from self._remote_directory(argument, fs, status)
            else:
                yield self._remote_file(argument, fs.makeQualified(path).toString(), status.getLen())
            return
        if len(statuses) == 0:
            yield InputFile(path=argument, uri="", error=("not_found", "no such file"))
        for status in sorted(statuses, key=lambda s: s.getPath().toString()):
            shown = status.getPath().toString()
            if status.isDirectory():
                yield from self._remote_directory(shown, fs, status)
            else:
                yield self._remote_file(shown, shown, status.getLen())

    def _remote_directory(self, shown: str, fs, status) -> Iterator[InputFile]:
        base = status.getPath().toString().rstrip("/") + "/"
        found = []
        models = set()
        iterator = fs.listFiles(status.getPath(), True)
        while iterator.hasNext():
            entry = iterator.next()
            full = entry.getPath().toString()
            relative = full[len(base):] if full.startswith(base) else entry.getPath().getName()
            if _wanted(entry.getPath().getName()):
                found.append((relative, full, entry.getLen()))
            elif entry.getPath().getName() == "model.json":
                models.add(relative)
        for relative, full, size in sorted(found):
            yield self._remote_file(_join(shown, relative), full, size, _nearest_model(shown, relative, models.__contains__))

    def read_bytes(self, location: str) -> bytes:
        """A whole file through Hadoop's FileSystem on the driver (models, hidden files)."""
        if not _SCHEME.match(location):
            with open(location, "rb") as handle:
                return handle.read()
        path = self._hadoop_path(location)
        stream = path.getFileSystem(self.conf).open(path)
        try:
            return bytes(self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()


def _nearest_model(shown: str, relative: str, exists) -> str | None:
    """navreplay's rule: the model.json beside a file under a directory argument, else the nearest
    one above it, up to the argument; ``exists`` tells whether a path relative to it is there."""
    components = relative.split("/")[:-1]
    while True:
        candidate = "/".join(components + ["model.json"])
        if exists(candidate):
            return _join(shown, candidate)
        if not components:
            return None
        components.pop()


# ---------------------------------------------------------------------------------------------
# Spark: the session, the output directory, the shuffle
# ---------------------------------------------------------------------------------------------


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


_ARCHIVE: list[str] = []  # a class-data archive this run writes as its JVM exits: [written, final]


def _local_java_options(cds: bool, jar: str = "") -> list[str]:
    """The JVM's options in local mode, where it lives as long as the job. Its JIT's second tier
    (C2) compiled for about as long as the job's tasks ran, on the same cores, for code that runs
    once: C1 only. Loading and verifying Spark's classes took about 3 s of CPU a run: they come
    from a class-data archive (CDS) in the user's cache, which the first run writes as its JVM
    exits (`_finish_archive`)."""
    options = ["-XX:TieredStopAtLevel=1"]
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java")
    if not cds or not java or not os.path.exists(java):
        return options
    import hashlib
    import pyspark

    java = os.path.realpath(java)
    key = hashlib.sha256(f"{pyspark.__version__} {java} {os.path.getmtime(java)} {jar}".encode()).hexdigest()[:16]
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "navreplay")
    archive = os.path.join(cache, f"spark-classes-{key}.jsa")
    if os.path.exists(archive):
        return options + [f"-XX:SharedArchiveFile={archive}", "-XX:+VerifySharedSpaces"]
    try:
        os.makedirs(cache, exist_ok=True)
        for left in os.listdir(cache):  # of runs that failed: their JVMs wrote them as they ended
            if left.startswith(os.path.basename(archive) + ".") and time.time() - os.path.getmtime(
                    os.path.join(cache, left)) > 600:
                os.remove(os.path.join(cache, left))
    except OSError:
        return options
    _ARCHIVE[:] = [f"{archive}.{os.getpid()}", archive]
    return options + ["-XX:ArchiveClassesAtExit=" + _ARCHIVE[0]]


def _finish_archive(spark) -> None:
    """Ends the JVM this job started (it exits when its standard input closes) and waits for it,
    so that the archive it writes is complete (then put in place) and its CPU time and its
    children's count in the job's; under spark-submit, nothing."""
    process = getattr(spark.sparkContext._gateway, "proc", None)
    if process is None:
        return
    if not _ARCHIVE:
        try:
            process.stdin.close()
            process.wait(timeout=120)
        except Exception:  # it ends on its own
            pass
        return
    try:
        process.stdin.close()
        process.wait(timeout=120)
        if os.path.getsize(_ARCHIVE[0]) > 0:
            os.replace(*_ARCHIVE)
            _remove_others(_ARCHIVE[1], "spark-classes-", ".jsa")  # of other Spark, Java or JVM part versions
    except Exception:  # no archive: the next run writes one
        pass
    finally:
        if os.path.exists(_ARCHIVE[0]):
            os.remove(_ARCHIVE[0])


JAVA_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "NavreplayPipes.java")
SHIPPED_SOURCE = "NavreplayPipes.java"  # with spark-submit --files, in cluster deploy mode
PIPES_CLASS = "navreplay.spark.NavreplayPipes"


def _spark_jars() -> str:
    """The directory of Spark's jars: $SPARK_HOME's, else pip's pyspark's."""
    import pyspark

    home = os.environ.get("SPARK_HOME")
    if home and os.path.isdir(os.path.join(home, "jars")):
        return os.path.join(home, "jars")
    return os.path.join(os.path.dirname(pyspark.__file__), "jars")


def pipes_jar() -> str:
    """The JVM's part of the job (java/NavreplayPipes.java), compiled against Spark's own jars
    once and cached by the hash of the source and of those jars' names, in
    $XDG_CACHE_HOME/navreplay-spark/ (default ~/.cache); built in a temporary directory, then
    renamed into place."""
    import hashlib
    import subprocess
    import tempfile
    import zipfile

    jars = _spark_jars()
    path = JAVA_SOURCE if os.path.exists(JAVA_SOURCE) else os.path.abspath(SHIPPED_SOURCE)
    if not os.path.exists(path):
        raise UsageError(f"no {JAVA_SOURCE}: in cluster deploy mode, ship it with spark-submit --files, or give "
                         "spark-submit --jars a jar the job built (in ~/.cache/navreplay-spark/)")
    with open(path, "rb") as handle:
        source = handle.read()
    names = sorted(os.listdir(jars)) if os.path.isdir(jars) else []
    key = hashlib.sha256(source + "\n".join(names).encode()).hexdigest()[:16]
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "navreplay-spark")
    jar = os.path.join(cache, f"pipes-{key}.jar")
    if os.path.exists(jar):
        return jar
    javac = os.path.join(os.environ["JAVA_HOME"], "bin", "javac") if os.environ.get("JAVA_HOME") else shutil.which("javac")
    if not javac or not os.path.exists(javac):
        raise UsageError("the Spark job compiles its Java part once and needs a JDK (javac); none found on PATH or in "
                         "$JAVA_HOME (Debian: apt-get install openjdk-17-jdk-headless)")
    if not names:
        raise UsageError(f"no Spark jars in {jars}: set SPARK_HOME, or install pyspark")
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="navreplay-javac-", dir=cache) as scratch:
        classes = os.path.join(scratch, "classes")
        completed = subprocess.run([javac, "--release", "11", "-nowarn", "-cp", os.path.join(jars, "*"), "-d", classes,
                                    path], capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError(f"javac could not compile {path}: {completed.stderr.strip()[-2000:]}")
        built = os.path.join(scratch, "pipes.jar")
        with zipfile.ZipFile(built, "w") as archive:
            archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\n")
            for root, _, files in os.walk(classes):
                for name in sorted(files):
                    archive.write(os.path.join(root, name), os.path.relpath(os.path.join(root, name), classes))
        os.replace(built, jar)
    _remove_others(jar, "pipes-", ".jar")
    return jar


def _remove_others(kept: str, prefix: str, suffix: str) -> None:
    """Removes the other versions of a cached file (those a day old or more: not another job's)."""
    directory = os.path.dirname(kept)
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.startswith(prefix) and name.endswith(suffix) and path != kept:
            try:
                if time.time() - os.path.getmtime(path) > 86400:
                    os.remove(path)
            except OSError:
                pass


def _pipes(spark, jar: str | None):
    """The JVM's part, as py4j sees it. Under spark-submit the JVM was started before the job
    could build the jar: unless spark-submit --jars gave it, the jar joins the driver's class
    loader (Spark's, which py4j looks in) and goes to the executors with SparkContext.addJar."""
    sc = spark.sparkContext
    jvm = sc._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    try:
        jvm.java.lang.Class.forName(PIPES_CLASS, True, loader)
    except Exception:
        jar = jar or pipes_jar()
        try:
            loader.addURL(jvm.java.io.File(jar).toURI().toURL())
            sc._jsc.addJar(jar)
            jvm.java.lang.Class.forName(PIPES_CLASS, True, loader)
        except Exception as error:
            raise RuntimeError(f"the JVM does not see {PIPES_CLASS} from {jar}: {error}") from None
    return jvm.navreplay.spark.NavreplayPipes


def _spark_session(spark_args: list[str], master: str | None, jar: str | None):
    if _under_spark_submit():
        if spark_args:
            raise UsageError(
                "under spark-submit, give Spark options to spark-submit, before the script: " + " ".join(spark_args))
    else:
        arguments = list(spark_args)
        if "--master" not in arguments:
            arguments = ["--master", master or "local[*]"] + arguments
        def given(conf: str) -> bool:
            return any(a in ("--conf", "-c") and i + 1 < len(arguments) and arguments[i + 1].startswith(conf + "=")
                       for i, a in enumerate(arguments))

        if not given("spark.ui.showConsoleProgress"):
            arguments += ["--conf", "spark.ui.showConsoleProgress=false"]
        master_given = arguments[arguments.index("--master") + 1]
        # In local mode the shuffle never leaves the machine: its files are neither compressed nor
        # checksummed (about 1 s less of the JVM's CPU for a 1 GB log: LZ4 and Adler-32).
        for conf in ("spark.shuffle.compress", "spark.shuffle.checksum.enabled"):
            if master_given.startswith("local") and not given(conf):
                arguments += ["--conf", f"{conf}=false"]
        if master_given.startswith("local") and "--driver-java-options" not in arguments and not given(
                "spark.driver.extraJavaOptions"):
            classes = {"--jars", "--packages", "--driver-class-path"} & set(arguments) or any(
                given(conf) for conf in ("spark.jars", "spark.jars.packages", "spark.driver.extraClassPath"))
            arguments += ["--driver-java-options", " ".join(_local_java_options(cds=not classes, jar=jar))]
        # The JVM's part: on the driver's class path (the executor's, in local mode), and shipped
        # to the executors of a cluster.
        for option, joined, wanted in (("--driver-class-path", ":", True),
                                       ("--jars", ",", not master_given.startswith("local"))):
            if wanted and option in arguments:
                arguments[arguments.index(option) + 1] += joined + jar
            elif wanted:
                arguments += [option, jar]
        os.environ["PYSPARK_SUBMIT_ARGS"] = " ".join(shlex.quote(a) for a in arguments) + " pyspark-shell"
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("navreplay").getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("NAVREPLAY_SPARK_LOG_LEVEL", "WARN"))
    return spark


class OutputDir:
    """The output directory, on any Hadoop file system."""

    def __init__(self, spark, location: str):
        self.location = location.rstrip("/") or "/"
        jvm = spark.sparkContext._jvm
        if not _SCHEME.match(location):
            self.root = jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI("file", None, os.path.abspath(location), None))
        else:
            self.root = jvm.org.apache.hadoop.fs.Path(location)
        self.fs = self.root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        self.jvm = jvm
        self.uri = self.fs.makeQualified(self.root).toString()

    def child(self, name: str) -> str:
        return self.uri.rstrip("/") + "/" + name

    def prepare(self, names: list[str], overwrite: bool) -> None:
        existing = [n for n in names + ["summary.json"] if self.fs.exists(self.jvm.org.apache.hadoop.fs.Path(self.child(n)))]
        if existing and not overwrite:
            raise UsageError(f"{self.location} already holds {', '.join(existing)}: choose another --output, or --overwrite")
        for name in existing:
            self.fs.delete(self.jvm.org.apache.hadoop.fs.Path(self.child(name)), True)
        self.fs.mkdirs(self.root)

    def write(self, name: str, data: bytes) -> None:
        stream = self.fs.create(self.jvm.org.apache.hadoop.fs.Path(self.child(name)), True)
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()


def _jvm_usage(spark) -> tuple[int, float] | None:
    """The peak resident memory (bytes) and CPU time (s) of the JVM on this machine (local
    mode's executor), or None."""
    process = getattr(spark.sparkContext._gateway, "proc", None)
    pid = process.pid if process is not None else os.getppid()
    try:
        with open(f"/proc/{pid}/status") as status:
            peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return peak, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, StopIteration, ValueError, IndexError):
        return None


# ---------------------------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------------------------


def main(mode: str, argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    name = "navreplay_audit" if mode == "audit" else "navreplay_sessions"
    try:
        spark_args, job_args = split_spark_arguments(argv)
        args = build_parser(mode).parse_args(job_args)
        if args.max_line_bytes < 1:
            raise UsageError("please give --max-line-bytes a positive number")
        if args.partitions < 0 or args.jobs < 0:
            raise UsageError("please give --partitions and --jobs a number of 0 or more")
        master = spark_args[spark_args.index("--master") + 1] if "--master" in spark_args else None
        return _run(mode, args, spark_args, master)
    except UsageError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # Spark or navreplay failed: the outputs are not complete
        import traceback

        traceback.print_exc()
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"{name}: error: the job failed, its outputs are incomplete: {first}", file=sys.stderr)
        return 3


def _ship_binary(sc, navreplay: str) -> str:
    """Ships the binary to the executors (or checks that spark-submit --files did); its name there."""
    shipped_name = os.path.basename(navreplay.rstrip("/"))
    if _SCHEME.match(navreplay) or os.path.exists(navreplay):
        try:
            sc.addFile(navreplay if _SCHEME.match(navreplay) else os.path.abspath(navreplay))
        except Exception as error:  # already added (e.g. also given to --files)
            if "already" not in str(error).lower():
                raise
        return shipped_name
    shipped = [f.rstrip("/").rsplit("/", 1)[-1].split("#")[-1] for f in sc.getConf().get("spark.files", "").split(",") if f]
    if shipped_name not in shipped:
        raise UsageError(f"--navreplay {navreplay}: no such file, and no file of that name was shipped with "
                         "--files; give the binary's path or URI, or ship it with spark-submit --files")
    return shipped_name


def make_plan(mode: str, args, files: list[InputFile], models: list[bytes | None], file_model: list[int],
              navreplay: str, shipped: bool, parallelism: int) -> Plan:
    partitions = args.partitions or tasks.partition_count(files, args.partition_size, parallelism)
    return Plan(
        mode=mode, navreplay=navreplay, shipped=shipped, paths=[item.path for item in files],
        local=[item.local for item in files], gzip_named=[item.path.endswith(".gz") for item in files],
        models=models, file_model=file_model, splits=tasks.plan_splits(files, args.split_size),
        partitions=partitions, id_buckets=max(parallelism, partitions // 8), max_line_bytes=args.max_line_bytes,
        memory_limit=args.memory_limit, jobs=args.jobs, explicit_model=args.model is not None,
        max_findings=getattr(args, "max_findings_per_session", 10_000), explain=getattr(args, "explain", False),
        sessions=mode == "sessions" or not getattr(args, "no_sessions", False),
        split_sessions=args.debug_split_sessions, shorthand=not args.debug_plain_lines)


def _models(inputs: Inputs, files: list[InputFile], explicit: str | None) -> tuple[list, list[int]]:
    """The models (index 0: the built-in one, unless --model; then the model.json files in path
    order, as navreplay numbers them) and each file's."""
    if explicit:
        return [inputs.read_bytes(explicit)], [0] * len(files)
    paths = sorted({item.model_path for item in files if item.model_path}, key=lambda p: p.encode("utf-8", "surrogateescape"))
    index = {path: number + 1 for number, path in enumerate(paths)}
    return [None] + [inputs.read_bytes(path) for path in paths], [index.get(item.model_path, 0) for item in files]


def _run(mode: str, args, spark_args: list[str], master: str | None) -> int:
    name = "navreplay_audit" if mode == "audit" else "navreplay_sessions"
    started = time.monotonic()
    jar = None if _under_spark_submit() else pipes_jar()
    spark = _spark_session(spark_args, master, jar)
    sc = spark.sparkContext
    pipes = _pipes(spark, jar)
    output = OutputDir(spark, args.output)
    outputs = ["sessions", "quarantine"] if mode == "sessions" else ["findings", "findings_parquet", "quarantine"] + (
        [] if args.no_sessions else ["sessions"])
    output.prepare(outputs, args.overwrite)

    # The plan.
    inputs = Inputs(spark, args.debug_read_by_spark)
    files = inputs.resolve(args.inputs, args.model)
    models, file_model = _models(inputs, files, args.model)
    navreplay = _ship_binary(sc, args.navreplay)
    plan = make_plan(mode, args, files, models, file_model, navreplay, True, sc.defaultParallelism)
    uris = [item.uri if item.local is None else None for item in files]
    unreadable = {index: item.error for index, item in enumerate(files) if item.error is not None}
    after_line: dict[int, int | None] = {}

    # The map, the shuffle and the ledger buckets' reduce (with the splits' reports), in the JVM.
    shuffled = pipes.route(sc._jsc, tasks.pipes_plan(plan, uris), _split_groups(plan, args.split_size),
                           plan.partitions + plan.id_buckets) if plan.splits else None
    sc.setJobDescription("map: route each split; reduce: the ledger's buckets")
    ledger = tasks.ledger_items(pipes.ledger(shuffled, tasks.pipes_plan(plan, uris), plan.partitions)) if shuffled else []
    reports = [value for kind, value in ledger if kind == "report"]
    if sorted(report["split"] for report in reports) != list(range(len(plan.splits))):
        raise RuntimeError(f"Spark returned {len(reports)} reports for {len(plan.splits)} splits")
    plan.offsets, errors = tasks.line_offsets(plan, reports)
    for index, (code, message, after) in errors.items():
        unreadable[index] = (code, message)
        after_line[index] = after
    plan.shared = [] if plan.split_sessions else sorted({value for kind, value in ledger if kind == "shared"})
    peaks = {"route": max([v["peak_bytes"] for k, v in ledger if k == "route"] + [0]),
             "shared": max([v for k, v in ledger if k == "peak"] + [0])}

    # The reduce (in the JVM): each partition folded, its outputs kept (cached) until written.
    sc.setJobDescription("reduce: audit each partition")
    frame = _folded(spark, pipes, tasks.pipes_plan(plan, uris), shuffled, bool(plan.shared)) if shuffled else None
    small = frame.where("kind in ('M', 'P')").collect() if frame is not None else []
    summaries = [json.loads(bytes(row.data)) for row in small if row.kind == tasks.SUMMARY]
    stats = [json.loads(bytes(row.data)) for row in small if row.kind == tasks.STATS]
    peaks["audit"] = max([s["peak_bytes"] for s in stats] + [0])
    routes = [v for k, v in ledger if k == "route"]
    cpu = {"navreplay": sum(v["cpu_seconds"] for v in routes + stats) + sum(v for k, v in ledger if k == "cpu")}
    sizes = {kind: sum(s["outputs"].get(kind, 0) for s in stats) for kind in "FSQ"}

    if frame is not None:
        writes = [lambda: _write_quarantine(frame, output.child("quarantine"), sizes["Q"])]
        if mode == "audit":
            writes.append(lambda: _write_findings(frame, output, sizes["F"]))
        if "sessions" in outputs:
            writes.append(lambda: _write_sessions(frame, output.child("sessions"), sizes["S"]))
        _at_once(writes)
        frame.unpersist(blocking=True)
    else:
        _write_empty(spark, output, outputs)

    merged = tasks.merge_summaries(plan.paths, summaries, unreadable)
    output.write("summary.json", tasks.summary_json(merged).encode("utf-8"))
    jvm = _jvm_usage(spark) if (master or "local").startswith("local") else None
    elapsed = time.monotonic() - started
    if not args.quiet:
        for index in sorted(unreadable, key=lambda i: plan.paths[i].encode("utf-8", "surrogateescape")):
            code, message = unreadable[index]
            after = after_line.get(index)
            note = f" (after line {after}; the lines before it were audited)" if after else ""
            print(f"navreplay: error: {plan.paths[index]}: {message}{note}", file=sys.stderr)
        print("navreplay: " + tasks.summary_text(merged), file=sys.stderr)
        memory = f"navreplay {max(peaks.values()) / MB:.0f} MB" + (f", JVM {jvm[0] / MB:.0f} MB" if jvm else "")
        python = resource.getrusage(resource.RUSAGE_SELF)
        work = f"navreplay {cpu['navreplay']:.1f} s, the driver's Python {python.ru_utime + python.ru_stime:.1f} s" + (
            f", JVM {jvm[1]:.1f} s" if jvm else "")
        print(f"{name}: {len(plan.splits)} split(s), {plan.partitions} partition(s)"
              f"{f', {len(plan.shared)} session(s) sharing event ids' if plan.shared else ''}; {elapsed:.1f} s; "
              f"CPU time: {work}; peak memory: {memory}; outputs in {output.location}/", file=sys.stderr)
    spark.stop()
    _finish_archive(spark)
    if merged["unreadable_files"]:
        return 2
    if mode == "audit" and not args.allow_empty and merged["lines"] == merged["blank_lines"]:
        if not args.quiet:
            print("navreplay: error: the input holds no line that is not blank: no event was checked. "
                  "Give --allow-empty to accept an empty input.", file=sys.stderr)
        return 2
    if args.fail_on == "error" and merged["findings_by_severity"].get("error", 0) > 0:
        return 1
    if args.fail_on == "warning" and merged["findings"] > 0:
        return 1
    return 0


PARQUET = ("rule string, severity string, session_id string, seq long, event_id string, file string, line long, "
           "message string, expected string, found string, after_gap boolean, explanation string")


def _split_groups(plan: Plan, split_size: int) -> list[list[int]]:
    """The map's tasks: small files' splits share a task, up to a split's size; a file read
    through Hadoop (another file system) is a task of its own."""
    groups: list[list[int]] = []
    size = 0
    for index, split in enumerate(plan.splits):
        if plan.local[split.file] is None:
            groups.append([index])
            size = split_size
            continue
        length = split.end - split.start
        if not groups or size + length > split_size:
            groups.append([])
            size = 0
        groups[-1].append(index)
        size += length
    return groups


def _folded(spark, pipes, plan_json: str, shuffled, shared: bool):
    """The reduce: every partition through navreplay, and the sessions set apart folded together;
    their output blocks as a DataFrame, kept on disk until written (the folds run once; the
    executor's heap, 1 GB by default, holds none of it)."""
    from pyspark import StorageLevel
    from pyspark.sql import DataFrame

    frame = DataFrame(pipes.fold(spark._jsparkSession, plan_json, shuffled), spark).persist(StorageLevel.DISK_ONLY)
    if shared:
        apart = frame.where("kind = 'X'").select("partition", "data")
        together = DataFrame(pipes.foldApart(spark._jsparkSession, plan_json, apart._jdf), spark)
        frame = frame.where("kind != 'X'").union(together).persist(StorageLevel.DISK_ONLY)
    return frame


def _lines(frame, kind: str, fields: int = 1):
    """The lines of one output's blocks, with their place: (partition, block, position, row), the
    row split at tabs into ``fields`` (navreplay's sort key first)."""
    from pyspark.sql import functions as F

    lines = (frame.where(f"kind = '{kind}'")
             .selectExpr("partition", "block", "posexplode(split(cast(data as string), '\\n')) as (position, row)")
             .where("row != ''"))
    return lines.withColumn("row", F.split("row", "\t", fields)) if fields > 1 else lines


def _ordered(lines, keys: list, size: int):
    """Sorted by ``keys``, then by place (a partition's own order), in parts of about 128 MB."""
    from pyspark.sql import functions as F

    order = keys + [F.col("partition"), F.col("block"), F.col("position")]
    parts = max(1, -(-size // (128 * MB)))
    spread = lines.coalesce(1) if parts == 1 else lines.repartitionByRange(parts, *order)
    return spread.sortWithinPartitions(*order)


def _write_sessions(frame, path: str, size: int) -> None:
    """The records by navreplay's sort key (the session id's bytes)."""
    from pyspark.sql import functions as F

    frame.sparkSession.sparkContext.setJobDescription("write: sessions")
    lines = _lines(frame, tasks.SESSIONS, 2)
    _ordered(lines, [F.col("row")[0]], size).select(F.col("row")[1].alias("value")).write.text(path)


def _write_quarantine(frame, path: str, size: int) -> None:
    """The invalid lines by file and line."""
    from pyspark.sql import functions as F

    frame.sparkSession.sparkContext.setJobDescription("write: quarantine")
    keys = [F.expr("get_json_object(row, '$.file')"), F.expr("cast(get_json_object(row, '$.line') as long)")]
    _ordered(_lines(frame, tasks.QUARANTINE), keys, size).select("row").write.text(path)


def _write_findings(frame, output: OutputDir, size: int) -> None:
    """By navreplay's sort key (the findings without a session by file and line, then by session):
    the NDJSON lines, and a Parquet table of their fields (expected, found and explanation as
    JSON text)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    frame.sparkSession.sparkContext.setJobDescription("write: findings, findings_parquet")
    ordered = _ordered(_lines(frame, tasks.FINDINGS, 14), [F.col("row")[0]], size).select("row").persist(
        StorageLevel.DISK_ONLY)
    ordered.count()  # sorted once, then both written at once

    # The table's columns, as navreplay gives them: texts in hexadecimal, `-` for none.
    def column(index: int, name: str, kind: str):
        value = F.when(F.col("row")[index] != "-", F.col("row")[index])
        if kind == "string":
            return F.decode(F.unhex(value), "UTF-8").alias(name)
        if kind == "boolean":
            return (F.col("row")[index] == "1").alias(name)
        return value.cast(kind).alias(name)

    kinds = [field.split() for field in PARQUET.split(", ")]
    table = ordered.select(*[column(index + 2, name, kind) for index, (name, kind) in enumerate(kinds)])
    _at_once([lambda: ordered.select(F.col("row")[1].alias("value")).write.text(output.child("findings")),
              lambda: table.write.parquet(output.child("findings_parquet"))], "write: findings, findings_parquet")
    ordered.unpersist(blocking=True)


def _at_once(writes: list, description: str | None = None) -> None:
    """Runs Spark jobs at once, each from a thread of its own (a small output is one task)."""
    from concurrent.futures import ThreadPoolExecutor

    def run(write):
        if description:
            from pyspark import SparkContext

            SparkContext.getOrCreate().setJobDescription(description)
        write()

    with ThreadPoolExecutor(len(writes)) as pool:
        for done in [pool.submit(run, write) for write in writes]:
            done.result()


def _write_empty(spark, output: OutputDir, outputs: list[str]) -> None:
    """No file could be read: empty outputs, as navreplay writes none."""
    for name in outputs:
        if name == "findings_parquet":
            spark.createDataFrame([], PARQUET).write.parquet(output.child(name))
        else:
            spark.createDataFrame([], "value string").write.text(output.child(name))


def entry(mode: str) -> None:
    sys.exit(main(mode))
