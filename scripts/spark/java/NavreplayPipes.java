package navreplay.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.PartitionPruningRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.rdd.ShuffledRDD;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.TaskCompletionListener;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The Spark job's data path: the tasks that run navreplay and move its blocks, in the JVM, so that
 * no block passes through a Python worker. The driver (navreplay_job.py) plans: it gives each
 * navreplay command line and what the tasks need as JSON.
 *
 * <ul>
 *   <li>{@link #route} (the map): each split through {@code navreplay partition route}, its frames
 *       as (destination, block) pairs, shuffled by destination, one record per block.
 *   <li>{@link #fold} (the reduce): each partition's blocks through {@code navreplay partition
 *       expand} and {@code navreplay partition audit}; its outputs as rows of whole lines.
 * </ul>
 *
 * <p>{@link #routeFrames} and {@link #foldFrames} run the same tasks without Spark (for tests).
 */
public final class NavreplayPipes {
  private NavreplayPipes() {}

  static final int BLOCK = 4 << 20;
  static final StructType RESULTS =
      new StructType()
          .add("kind", DataTypes.StringType)
          .add("partition", DataTypes.IntegerType)
          .add("block", DataTypes.IntegerType)
          .add("data", DataTypes.BinaryType);

  // -------------------------------------------------------------------------------------------
  // Spark
  // -------------------------------------------------------------------------------------------

  /**
   * The map and the shuffle: a task per group of splits, each split through navreplay; the blocks
   * moved to their destination (partitions first, then the ledger's buckets), one record each.
   */
  public static JavaPairRDD<Integer, byte[]> route(
      JavaSparkContext sc, String planJson, List<List<Integer>> groups, int destinations) throws IOException {
    List<int[]> splits = new ArrayList<>();
    for (List<Integer> group : groups) {
      int[] indices = new int[group.size()];
      for (int i = 0; i < indices.length; i++) indices[i] = group.get(i);
      splits.add(indices);
    }
    // The driver's Hadoop settings, for the tasks that read a file of another file system.
    Map<String, String> hadoop = null;
    if (Plan.parse(planJson).routeUris.stream().anyMatch(uri -> uri != null)) {
      hadoop = new TreeMap<>();
      for (Map.Entry<String, String> entry : sc.hadoopConfiguration()) hadoop.put(entry.getKey(), entry.getValue());
    }
    Map<String, String> settings = hadoop;
    JavaPairRDD<Integer, byte[]> routed =
        sc.parallelize(splits, Math.max(1, splits.size()))
            .flatMapToPair(
                indices -> {
                  Plan plan = Plan.parse(planJson);
                  plan.hadoop = settings;
                  List<Iterator<Tuple2<Integer, byte[]>>> parts = new ArrayList<>();
                  for (int index : indices) parts.add(new Route(plan, index));
                  return new Chain<>(parts.iterator());
                });
    // Kryo copies a block in 64 KB pieces, Java serialization in 1 KB ones.
    ShuffledRDD<Integer, byte[], byte[]> shuffled =
        new ShuffledRDD<>(routed.rdd(), new HashPartitioner(destinations), INT, BYTES, BYTES);
    shuffled.setSerializer(new KryoSerializer(sc.getConf()));
    return new JavaPairRDD<>(shuffled, INT, BYTES);
  }

  static final ClassTag<Integer> INT = ClassTag$.MODULE$.apply(Integer.class);
  static final ClassTag<byte[]> BYTES = ClassTag$.MODULE$.apply(byte[].class);

  /**
   * The ledger's buckets (the destinations from {@code from} on), reduced: the splits' reports
   * and statistics, and the sessions that share an event id with another session; as lines of
   * a kind and a value (see {@link Ledger}).
   */
  public static List<String> ledger(JavaPairRDD<Integer, byte[]> shuffled, String planJson, int from) {
    RDD<Tuple2<Integer, byte[]>> buckets = PartitionPruningRDD.create(shuffled.rdd(), new From(from));
    JavaRDD<Tuple2<Integer, byte[]>> pairs = new JavaRDD<>(buckets, ClassTag$.MODULE$.apply(Tuple2.class));
    return pairs.mapPartitions(input -> new Ledger(Plan.parse(planJson), new Values(input)).run().iterator()).collect();
  }

  /** The partitions from a number on. */
  static final class From extends AbstractFunction1<Object, Object> implements Serializable {
    private static final long serialVersionUID = 1L;
    final int from;

    From(int from) {
      this.from = from;
    }

    @Override
    public Object apply(Object index) {
      return (Integer) index >= from;
    }
  }

  /** The reduce: each partition below {@code partitions} folded; its outputs as rows. */
  public static Dataset<Row> fold(SparkSession spark, String planJson, JavaPairRDD<Integer, byte[]> shuffled) {
    JavaRDD<Row> rows =
        shuffled.mapPartitionsWithIndex(
            (index, pairs) -> {
              Plan plan = Plan.parse(planJson);
              if (index >= plan.partitions) return Collections.<Row>emptyIterator();
              Iterator<Tuple2<Integer, byte[]>> blocks = new Located(plan, new Values(pairs));
              return new Rows(new Fold(plan, index, blocks, !plan.shared.isEmpty(), plan.shorthand, 5).run());
            },
            false);
    return spark.createDataFrame(rows, RESULTS);
  }

  /** The sessions set apart (rows of kind X: model, lines), folded together in one task. */
  public static Dataset<Row> foldApart(SparkSession spark, String planJson, Dataset<Row> apart) {
    JavaRDD<Row> rows =
        apart
            .javaRDD()
            .coalesce(1)
            .mapPartitions(
                input -> {
                  Plan plan = Plan.parse(planJson);
                  Iterator<Tuple2<Integer, byte[]>> blocks = new Mapped(input);
                  return new Rows(new Fold(plan, plan.partitions, blocks, false, false, 0).run());
                });
    return spark.createDataFrame(rows, RESULTS);
  }

  // -------------------------------------------------------------------------------------------
  // Without Spark (tests): frames in, frames out
  // -------------------------------------------------------------------------------------------

  /** One split routed: its frames (little-endian destination and length, then the block). */
  public static byte[] routeFrames(String planJson, int index) throws IOException {
    Route route = new Route(Plan.parse(planJson), index);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (route.hasNext()) writeFrame(out, route.next());
    return out.toByteArray();
  }

  /**
   * One partition folded from its blocks (as frames), or with {@code apart} the set-apart blocks
   * (frames whose destination is the model); its rows as frames: the partition, then the kind, the
   * block number (little-endian) and the data.
   */
  public static byte[] foldFrames(String planJson, int partition, byte[] frames, boolean apart) throws IOException {
    Plan plan = Plan.parse(planJson);
    List<Tuple2<Integer, byte[]>> pairs = new ArrayList<>();
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(frames));
    Tuple2<Integer, byte[]> pair;
    while ((pair = readFrame(in)) != null) pairs.add(pair);
    Iterator<Tuple2<Integer, byte[]>> blocks =
        apart ? pairs.iterator() : new Located(plan, new Values(pairs.iterator()));
    Fold fold = new Fold(plan, partition, blocks, !apart && !plan.shared.isEmpty(), !apart && plan.shorthand, apart ? 0 : 5);
    Iterator<Object[]> rows = fold.run();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while (rows.hasNext()) {
      Object[] row = rows.next();
      byte[] data = (byte[]) row[3];
      byte[] payload = new byte[5 + data.length];
      payload[0] = (byte) ((String) row[0]).charAt(0);
      putInt(payload, 1, (Integer) row[2]);
      System.arraycopy(data, 0, payload, 5, data.length);
      writeFrame(out, new Tuple2<>((Integer) row[1], payload));
    }
    return out.toByteArray();
  }

  /** One ledger bucket reduced from its blocks (as frames): its lines (see {@link Ledger}). */
  public static List<String> ledgerLines(String planJson, byte[] frames) throws IOException {
    List<byte[]> payloads = new ArrayList<>();
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(frames));
    Tuple2<Integer, byte[]> pair;
    while ((pair = readFrame(in)) != null) payloads.add(pair._2());
    return new Ledger(Plan.parse(planJson), payloads.iterator()).run();
  }

  static void writeFrame(OutputStream out, Tuple2<Integer, byte[]> frame) throws IOException {
    byte[] header = new byte[8];
    putInt(header, 0, frame._1());
    putInt(header, 4, frame._2().length);
    out.write(header);
    out.write(frame._2());
  }

  static void putInt(byte[] bytes, int at, int value) {
    for (int i = 0; i < 4; i++) bytes[at + i] = (byte) (value >>> (8 * i));
  }

  static int getInt(byte[] bytes, int at) {
    int value = 0;
    for (int i = 0; i < 4; i++) value |= (bytes[at + i] & 0xff) << (8 * i);
    return value;
  }

  /** A frame of navreplay's output, or null at its end; a frame cut short fails. */
  static Tuple2<Integer, byte[]> readFrame(DataInputStream in) throws IOException {
    byte[] header = new byte[8];
    int read = 0;
    while (read < 8) {
      int n = in.read(header, read, 8 - read);
      if (n < 0) break;
      read += n;
    }
    if (read == 0) return null;
    if (read < 8) throw new NavreplayFailed("navreplay's output ended in the middle of a frame header");
    int length = getInt(header, 4);
    if (length < 0) throw new NavreplayFailed("navreplay's output holds a frame of " + (length & 0xffffffffL) + " bytes");
    byte[] payload = new byte[length];
    int got = 0;
    while (got < length) {
      int n = in.read(payload, got, length - got);
      if (n < 0) {
        throw new NavreplayFailed(
            "navreplay's output ended in the middle of a frame (" + got + " of " + length + " bytes)");
      }
      got += n;
    }
    return new Tuple2<>(getInt(header, 0), payload);
  }

  // -------------------------------------------------------------------------------------------
  // The plan
  // -------------------------------------------------------------------------------------------

  /** What the tasks need, as the driver wrote it (navreplay_job.py, ``_pipes_plan``). */
  static final class Plan implements Serializable {
    private static final long serialVersionUID = 1L;
    String binary;
    boolean shipped;
    int partitions;
    List<List<String>> routes = new ArrayList<>(); // each split's arguments to navreplay
    List<Integer> routePartitions = new ArrayList<>(); // each split's --partitions
    List<String> routeUris = new ArrayList<>(); // null: navreplay opens the file; else read here
    List<Integer> splitModel = new ArrayList<>();
    List<byte[]> models = new ArrayList<>();
    byte[] explicitModel;
    boolean shorthand;
    List<String> audit = new ArrayList<>(); // @WORK@ stands for the task's directory
    String pathsText = "";
    String offsetsText = "";
    List<String> shared = new ArrayList<>();
    int maxLineBytes;
    Map<String, String> hadoop;

    static Plan parse(String json) throws IOException {
      JsonNode root = new ObjectMapper().readTree(json);
      Plan plan = new Plan();
      plan.binary = root.path("binary").asText();
      plan.shipped = root.path("shipped").asBoolean();
      plan.partitions = root.path("partitions").asInt();
      for (JsonNode route : root.path("routes")) {
        List<String> arguments = new ArrayList<>();
        for (JsonNode argument : route.path("arguments")) arguments.add(argument.asText());
        plan.routes.add(arguments);
        plan.routePartitions.add(route.path("partitions").asInt());
        plan.routeUris.add(route.path("uri").isTextual() ? route.path("uri").asText() : null);
        plan.splitModel.add(route.path("model").asInt());
      }
      for (JsonNode model : root.path("models")) {
        plan.models.add(model.isTextual() ? Base64.getDecoder().decode(model.asText()) : null);
      }
      if (root.path("explicit_model").isTextual()) {
        plan.explicitModel = Base64.getDecoder().decode(root.path("explicit_model").asText());
      }
      plan.shorthand = root.path("shorthand").asBoolean();
      for (JsonNode argument : root.path("audit")) plan.audit.add(argument.asText());
      plan.pathsText = root.path("paths_text").asText("");
      plan.offsetsText = root.path("offsets_text").asText("");
      for (JsonNode session : root.path("shared")) plan.shared.add(session.asText());
      plan.maxLineBytes = root.path("max_line_bytes").asInt();
      return plan;
    }

    /** The binary: a path, or the name of a file Spark shipped (made executable). */
    String binary() throws IOException {
      if (!shipped) return binary;
      File file = new File(SparkFiles.get(binary));
      if (!file.canExecute() && !file.setExecutable(true)) {
        Path copy = Files.createTempDirectory("navreplay-bin-").resolve("navreplay");
        Files.copy(file.toPath(), copy);
        copy.toFile().setExecutable(true);
        return copy.toString();
      }
      return file.getPath();
    }
  }

  static final class NavreplayFailed extends IOException {
    private static final long serialVersionUID = 1L;
    NavreplayFailed(String message) {
      super(message);
    }
  }

  // -------------------------------------------------------------------------------------------
  // A navreplay process
  // -------------------------------------------------------------------------------------------

  /**
   * A navreplay process: standard error to a file (its message when it fails). Its peak memory
   * and CPU time are read from /proc while it runs (VmHWM, utime and stime; at most a poll's
   * interval of CPU time is missed at its end).
   */
  static final class Child {
    final String what;
    final Process process;
    final File errors;
    final Thread watcher;
    volatile long peakBytes;
    volatile double cpuSeconds;
    String message = "";

    Child(List<String> command, String what, boolean stdin, boolean stdout) throws IOException {
      this(command, what, stdin, stdout ? null : new File("/dev/null"));
    }

    /** {@code output}: where standard output goes; null: a pipe. */
    Child(List<String> command, String what, boolean stdin, File output) throws IOException {
      this.what = what;
      this.errors = File.createTempFile("navreplay-stderr-", ".txt");
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.redirectError(errors);
      if (!stdin) builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      if (output != null) builder.redirectOutput(output);
      try {
        this.process = builder.start();
      } catch (IOException error) {
        errors.delete();
        throw new NavreplayFailed("navreplay " + what + " could not start: " + error.getMessage());
      }
      long pid = process.pid();
      this.watcher =
          new Thread(
              () -> {
                try {
                  while (process.isAlive()) {
                    poll(pid);
                    Thread.sleep(20);
                  }
                } catch (InterruptedException ignored) {
                  // the task ended
                }
              },
              "navreplay " + what + " " + pid);
      watcher.setDaemon(true);
      watcher.start();
    }

    private void poll(long pid) {
      try {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
          if (line.startsWith("VmHWM:")) {
            long kb = Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
            peakBytes = Math.max(peakBytes, kb * 1024);
          }
        }
        String stat = new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/stat")), StandardCharsets.US_ASCII);
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime and stime, in clock ticks (Linux's USER_HZ: 100 a second)
        cpuSeconds = Math.max(cpuSeconds, (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0);
      } catch (IOException | RuntimeException ignored) {
        // it ended between two reads
      }
    }

    /** Waits for the end; a status outside {@code ok} fails with navreplay's message. */
    int finish(int... ok) throws IOException {
      try {
        if (process.getOutputStream() != null) process.getOutputStream().close();
      } catch (IOException ignored) {
        // it ended early: its status says why
      }
      int status;
      try {
        status = process.waitFor();
        watcher.interrupt();
        watcher.join();
      } catch (InterruptedException error) {
        kill();
        throw new IOException("interrupted while navreplay " + what + " ran", error);
      }
      message = new String(Files.readAllBytes(errors.toPath()), StandardCharsets.UTF_8).trim();
      errors.delete();
      for (int allowed : ok) if (status == allowed) return status;
      throw fail(status, "");
    }

    NavreplayFailed fail(int status, String why) {
      return new NavreplayFailed("navreplay " + what + " exited with status " + status + why + ": " + message);
    }

    void kill() {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
      watcher.interrupt();
      errors.delete();
    }
  }

  // -------------------------------------------------------------------------------------------
  // A ledger bucket: navreplay partition shared
  // -------------------------------------------------------------------------------------------

  /**
   * A ledger bucket's blocks: the splits' reports (E) and statistics (S) as they are, and its
   * event ids (I) through {@code navreplay partition shared}, which names the sessions that share
   * one with another session. Lines: {@code report<TAB>json}, {@code route<TAB>json}, {@code
   * shared<TAB>hash}, {@code peak<TAB>bytes}, {@code cpu<TAB>seconds}.
   */
  static final class Ledger {
    final Plan plan;
    final Iterator<byte[]> payloads;

    Ledger(Plan plan, Iterator<byte[]> payloads) {
      this.plan = plan;
      this.payloads = payloads;
    }

    List<String> run() throws IOException {
      List<String> lines = new ArrayList<>();
      Child child = null;
      File output = null;
      OutputStream in = null;
      try {
        while (payloads.hasNext()) {
          byte[] payload = payloads.next();
          if (payload.length == 0) continue;
          if (payload[0] == 'I') {
            if (child == null) {
              output = File.createTempFile("navreplay-shared-", ".txt");
              child = new Child(Arrays.asList(plan.binary(), "partition", "shared", "-"), "partition shared", true, output);
              in = child.process.getOutputStream();
            }
            try {
              in.write(payload, 1, payload.length - 1);
            } catch (IOException error) {
              child.finish(0); // it ended early: its status says why
              throw error;
            }
          } else if (payload[0] == 'E' || payload[0] == 'S') {
            String value = new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
            lines.add((payload[0] == 'E' ? "report\t" : "route\t") + value);
          }
        }
        if (child != null) {
          child.finish(0);
          lines.add("peak\t" + child.peakBytes);
          lines.add(String.format(java.util.Locale.ROOT, "cpu\t%.3f", child.cpuSeconds));
          for (String hash : new String(Files.readAllBytes(output.toPath()), StandardCharsets.UTF_8).split("\\s+")) {
            if (!hash.isEmpty()) lines.add("shared\t" + hash);
          }
        }
        return lines;
      } catch (IOException | RuntimeException error) {
        if (child != null) child.kill();
        throw error;
      } finally {
        if (output != null) output.delete();
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // The map: a split through navreplay partition route
  // -------------------------------------------------------------------------------------------

  /** One split's frames, remapped (the ledger's buckets follow the partitions), then its stats. */
  static final class Route implements Iterator<Tuple2<Integer, byte[]>> {
    final Plan plan;
    final int index;
    final int partitions;
    final long started = System.nanoTime();
    Child child;
    DataInputStream in;
    Thread feeder;
    volatile Throwable feedError;
    Tuple2<Integer, byte[]> next;
    boolean reported;
    boolean done;

    Route(Plan plan, int index) {
      this.plan = plan;
      this.index = index;
      this.partitions = plan.routePartitions.get(index);
    }

    private void start() throws IOException {
      List<String> command = new ArrayList<>();
      command.add(plan.binary());
      command.addAll(plan.routes.get(index));
      String uri = plan.routeUris.get(index);
      child = new Child(command, "partition route", uri != null, true);
      in = new DataInputStream(new BufferedInputStream(child.process.getInputStream(), 1 << 16));
      TaskContext task = TaskContext.get();
      if (task != null) task.addTaskCompletionListener((TaskCompletionListener) context -> close());
      if (uri != null) {
        feeder = new Thread(() -> feed(uri), "navreplay feed " + index);
        feeder.setDaemon(true);
        feeder.start();
      }
    }

    /** A file of another file system, read through Hadoop's FileSystem into navreplay. */
    private void feed(String uri) {
      try (OutputStream out = child.process.getOutputStream()) {
        Configuration conf = new Configuration();
        if (plan.hadoop != null) {
          for (Map.Entry<String, String> entry : plan.hadoop.entrySet()) conf.set(entry.getKey(), entry.getValue());
        }
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(uri);
        try (InputStream source = path.getFileSystem(conf).open(path)) {
          byte[] buffer = new byte[1 << 16];
          int n;
          while ((n = source.read(buffer)) > 0) out.write(buffer, 0, n);
        }
      } catch (IOException error) {
        if (!String.valueOf(error.getMessage()).contains("Broken pipe")
            && !String.valueOf(error.getMessage()).contains("Stream closed")) {
          feedError = error;
        }
      }
    }

    void close() {
      if (child != null && !done) {
        done = true;
        child.kill();
      }
    }

    @Override
    public boolean hasNext() {
      if (next != null) return true;
      if (done) return false;
      try {
        if (child == null) start();
        Tuple2<Integer, byte[]> frame = readFrame(in);
        if (frame != null) {
          byte[] payload = frame._2();
          reported = reported || (payload.length > 0 && payload[0] == 'E');
          int destination = frame._1();
          next = new Tuple2<>(destination < partitions ? destination : destination + plan.partitions - partitions, payload);
          return true;
        }
        in.close();
        if (feeder != null) feeder.join();
        child.finish(0, 2); // 2: the file could not be read completely, as its report says
        done = true;
        if (feedError != null) throw new IOException("reading " + plan.routeUris.get(index) + ": " + feedError.getMessage(), feedError);
        if (!reported) throw child.fail(child.process.exitValue(), " and no report for split " + index);
        String stats =
            String.format(
                java.util.Locale.ROOT,
                "S{\"split\": %d, \"peak_bytes\": %d, \"cpu_seconds\": %.3f, \"seconds\": %.3f}",
                index, child.peakBytes, child.cpuSeconds, (System.nanoTime() - started) / 1e9);
        next = new Tuple2<>(plan.partitions, stats.getBytes(StandardCharsets.UTF_8));
        return true;
      } catch (IOException | InterruptedException | RuntimeException error) {
        close();
        throw new RuntimeException(error.getMessage(), error);
      }
    }

    @Override
    public Tuple2<Integer, byte[]> next() {
      if (!hasNext()) throw new NoSuchElementException();
      Tuple2<Integer, byte[]> frame = next;
      next = null;
      return frame;
    }
  }

  // -------------------------------------------------------------------------------------------
  // The reduce: a partition through navreplay partition expand and partition audit
  // -------------------------------------------------------------------------------------------

  static final class Fold {
    final Plan plan;
    final int partition;
    final Iterator<Tuple2<Integer, byte[]>> blocks; // (model, lines)
    final boolean setApart;
    final boolean shorthand;
    final int header; // bytes before the lines in each block: 5 (kind, split) for the shuffled ones
    final long started = System.nanoTime();
    Path workdir;
    long peak;
    double cpu;
    long received;

    Fold(Plan plan, int partition, Iterator<Tuple2<Integer, byte[]>> blocks, boolean setApart, boolean shorthand, int header) {
      this.plan = plan;
      this.header = header;
      this.partition = partition;
      this.blocks = blocks;
      this.setApart = setApart;
      this.shorthand = shorthand;
    }

    void account(Child child) {
      peak = Math.max(peak, child.peakBytes);
      cpu += child.cpuSeconds;
    }

    /** Rows: {kind, partition, block, data}; the last one its statistics. */
    Iterator<Object[]> run() throws IOException {
      workdir = Files.createTempDirectory("navreplay-p" + partition + "-");
      TaskContext task = TaskContext.get();
      if (task != null) task.addTaskCompletionListener((TaskCompletionListener) context -> delete(workdir.toFile()));
      try {
        List<Object[]> apart = new ArrayList<>();
        Map<Integer, Object> files = new TreeMap<>();
        Map<Integer, Child> expanding = new TreeMap<>();
        try {
          while (blocks.hasNext()) {
            Tuple2<Integer, byte[]> block = blocks.next();
            int model = block._1();
            byte[] data = block._2();
            int offset = header;
            OutputStream out = (OutputStream) files.get(model);
            if (out == null) {
              String path = linesPath(model);
              if (shorthand) {
                Child child =
                    new Child(Arrays.asList(plan.binary(), "partition", "expand", "--output", path, "-"), "partition expand", true, false);
                expanding.put(model, child);
                out = child.process.getOutputStream();
              } else {
                out = new FileOutputStream(path);
              }
              files.put(model, out);
            }
            try {
              out.write(data, offset, data.length - offset);
            } catch (IOException error) {
              Child child = expanding.get(model);
              if (child == null) throw error;
              child.finish(0); // it ended early: its status says why
              throw error;
            }
            received += data.length - offset;
          }
          for (Map.Entry<Integer, Object> entry : files.entrySet()) {
            ((OutputStream) entry.getValue()).close();
            Child child = expanding.remove(entry.getKey());
            if (child != null) {
              child.finish(0);
              account(child);
            }
          }
        } finally {
          for (Child child : expanding.values()) child.kill();
        }
        if (setApart && !files.isEmpty()) setApart(files.keySet(), apart);
        List<Object[]> outputs = audit();
        List<Iterator<Object[]>> all = new ArrayList<>();
        all.add(apart.iterator());
        all.add(new Outputs(outputs));
        return new Chain<>(all.iterator());
      } catch (IOException | RuntimeException error) {
        delete(workdir.toFile());
        throw error;
      }
    }

    /** Each model's lines in a directory of their own, with its model.json (nearest-model rule). */
    String linesPath(int model) throws IOException {
      Path directory = workdir.resolve("lines").resolve(String.format("m%06d", model));
      Files.createDirectories(directory);
      if (model < plan.models.size() && plan.models.get(model) != null && plan.explicitModel == null) {
        Files.write(directory.resolve("model.json"), plan.models.get(model));
      }
      return directory.resolve("lines.ndjson").toString();
    }

    /** The lines of the sessions that share event ids with other partitions' set apart (X). */
    void setApart(Iterable<Integer> models, List<Object[]> apart) throws IOException {
      Path shared = workdir.resolve("shared.txt");
      StringBuilder text = new StringBuilder();
      for (String session : plan.shared) text.append(session).append('\n');
      Files.write(shared, text.toString().getBytes(StandardCharsets.UTF_8));
      for (int model : models) {
        String path = linesPath(model);
        Path kept = Paths.get(path + ".kept");
        Child child =
            new Child(
                Arrays.asList(plan.binary(), "partition", "route", path, "--sessions", shared.toString(), "--partitions", "2",
                    "--split-index", String.valueOf(model), "--max-line-bytes", String.valueOf(plan.maxLineBytes)),
                "partition route --sessions", false, true);
        int number = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(child.process.getInputStream(), 1 << 16));
            OutputStream out = new FileOutputStream(kept.toFile())) {
          Tuple2<Integer, byte[]> frame;
          while ((frame = readFrame(in)) != null) {
            byte[] payload = frame._2();
            if (payload.length == 0 || payload[0] != 'L') continue;
            if (frame._1() == 0) {
              out.write(payload, 5, payload.length - 5);
            } else {
              apart.add(new Object[] {"X", model, number++, Arrays.copyOfRange(payload, 5, payload.length)});
            }
          }
        } catch (IOException | RuntimeException error) {
          child.kill();
          throw error;
        }
        child.finish(0);
        account(child);
        Files.move(kept, Paths.get(path), StandardCopyOption.REPLACE_EXISTING);
      }
    }

    /** navreplay partition audit on the lines; its output files (kind, path), in kind order. */
    List<Object[]> audit() throws IOException {
      List<Object[]> outputs = new ArrayList<>();
      if (!Files.isDirectory(workdir.resolve("lines"))) return outputs;
      Files.write(workdir.resolve("paths.txt"), plan.pathsText.getBytes(StandardCharsets.UTF_8));
      Files.write(workdir.resolve("offsets.txt"), plan.offsetsText.getBytes(StandardCharsets.UTF_8));
      List<String> command = new ArrayList<>();
      command.add(plan.binary());
      String work = workdir.toString();
      for (String argument : plan.audit) command.add(argument.replace("@WORK@", work));
      if (plan.explicitModel != null) {
        Files.write(workdir.resolve("model.json"), plan.explicitModel);
        command.add("--model");
        command.add(workdir.resolve("model.json").toString());
      }
      command.add(workdir.resolve("lines").toString());
      Child child = new Child(command, "partition audit", false, false);
      child.finish(0);
      account(child);
      String[][] kinds = {{"F", "findings.ndjson"}, {"S", "sessions.ndjson"}, {"Q", "quarantine.ndjson"}, {"M", "summary.json"}};
      for (String[] kind : kinds) {
        File file = workdir.resolve(kind[1]).toFile();
        if (file.exists()) outputs.add(new Object[] {kind[0], file});
      }
      return outputs;
    }

    /** The output files' whole lines in blocks of about 4 MB, then the statistics. */
    final class Outputs implements Iterator<Object[]> {
      final Iterator<Object[]> files;
      final Map<String, Long> sizes = new LinkedHashMap<>();
      InputStream in;
      String kind;
      int number;
      byte[] carry = new byte[0];
      Object[] next;
      boolean finished;

      Outputs(List<Object[]> outputs) {
        this.files = outputs.iterator();
      }

      @Override
      public boolean hasNext() {
        if (next != null) return true;
        if (finished) return false;
        try {
          while (true) {
            if (in == null) {
              if (!files.hasNext()) {
                next = stats();
                finished = true;
                delete(workdir.toFile());
                return true;
              }
              Object[] output = files.next();
              kind = (String) output[0];
              in = new FileInputStream((File) output[1]);
              number = 0;
              carry = new byte[0];
            }
            byte[] chunk = readUpTo(in, BLOCK);
            if (chunk.length == 0) {
              in.close();
              in = null;
              if (carry.length > 0) {
                emit(carry);
                carry = new byte[0];
                return true;
              }
              continue;
            }
            byte[] data = concat(carry, chunk);
            int cut = lastNewline(data) + 1;
            carry = Arrays.copyOfRange(data, cut, data.length);
            if (cut > 0) {
              emit(cut == data.length ? data : Arrays.copyOf(data, cut));
              return true;
            }
          }
        } catch (IOException error) {
          delete(workdir.toFile());
          throw new RuntimeException(error.getMessage(), error);
        }
      }

      private void emit(byte[] block) {
        sizes.merge(kind, (long) block.length, Long::sum);
        next = new Object[] {kind, partition, number++, block};
      }

      private Object[] stats() {
        StringBuilder outputs = new StringBuilder("{");
        for (Map.Entry<String, Long> entry : sizes.entrySet()) {
          if (outputs.length() > 1) outputs.append(", ");
          outputs.append('"').append(entry.getKey()).append("\": ").append(entry.getValue());
        }
        outputs.append('}');
        String json =
            String.format(
                java.util.Locale.ROOT,
                "{\"partition\": %d, \"bytes\": %d, \"outputs\": %s, \"peak_bytes\": %d, \"cpu_seconds\": %.3f, \"seconds\": %.3f}",
                partition, received, outputs, peak, cpu, (System.nanoTime() - started) / 1e9);
        return new Object[] {"P", partition, 0, json.getBytes(StandardCharsets.UTF_8)};
      }

      @Override
      public Object[] next() {
        if (!hasNext()) throw new NoSuchElementException();
        Object[] row = next;
        next = null;
        return row;
      }
    }
  }

  static byte[] readUpTo(InputStream in, int size) throws IOException {
    byte[] buffer = new byte[size];
    int got = 0;
    while (got < size) {
      int n = in.read(buffer, got, size - got);
      if (n < 0) break;
      got += n;
    }
    return got == size ? buffer : Arrays.copyOf(buffer, got);
  }

  static byte[] concat(byte[] a, byte[] b) {
    if (a.length == 0) return b;
    byte[] joined = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  static int lastNewline(byte[] data) {
    for (int i = data.length - 1; i >= 0; i--) if (data[i] == '\n') return i;
    return -1;
  }

  static void delete(File file) {
    File[] children = file.listFiles();
    if (children != null) for (File child : children) delete(child);
    file.delete();
  }

  // -------------------------------------------------------------------------------------------
  // Iterators
  // -------------------------------------------------------------------------------------------

  /** The values of (destination, block) pairs. */
  static final class Values implements Iterator<byte[]> {
    final Iterator<Tuple2<Integer, byte[]>> pairs;

    Values(Iterator<Tuple2<Integer, byte[]>> pairs) {
      this.pairs = pairs;
    }

    public boolean hasNext() {
      return pairs.hasNext();
    }

    public byte[] next() {
      return pairs.next()._2();
    }
  }

  /** A partition's blocks of lines (L, H) with their model (from their split); the rest skipped. */
  static final class Located implements Iterator<Tuple2<Integer, byte[]>> {
    final Plan plan;
    final Iterator<byte[]> payloads;
    Tuple2<Integer, byte[]> next;

    Located(Plan plan, Iterator<byte[]> payloads) {
      this.plan = plan;
      this.payloads = payloads;
    }

    public boolean hasNext() {
      while (next == null && payloads.hasNext()) {
        byte[] payload = payloads.next();
        if (payload.length >= 5 && (payload[0] == 'L' || payload[0] == 'H')) {
          next = new Tuple2<>(plan.splitModel.get(getInt(payload, 1)), payload);
        }
      }
      return next != null;
    }

    public Tuple2<Integer, byte[]> next() {
      if (!hasNext()) throw new NoSuchElementException();
      Tuple2<Integer, byte[]> block = next;
      next = null;
      return block;
    }
  }

  /** Rows of kind X (partition: the model; data: lines) as (model, lines). */
  static final class Mapped implements Iterator<Tuple2<Integer, byte[]>> {
    final Iterator<Row> rows;

    Mapped(Iterator<Row> rows) {
      this.rows = rows;
    }

    public boolean hasNext() {
      return rows.hasNext();
    }

    public Tuple2<Integer, byte[]> next() {
      Row row = rows.next();
      return new Tuple2<>(row.getInt(0), (byte[]) row.get(1));
    }
  }

  static final class Rows implements Iterator<Row> {
    final Iterator<Object[]> rows;

    Rows(Iterator<Object[]> rows) {
      this.rows = rows;
    }

    public boolean hasNext() {
      return rows.hasNext();
    }

    public Row next() {
      return RowFactory.create(rows.next());
    }
  }

  static final class Chain<T> implements Iterator<T> {
    final Iterator<? extends Iterator<T>> parts;
    Iterator<T> current = Collections.emptyIterator();

    Chain(Iterator<? extends Iterator<T>> parts) {
      this.parts = parts;
    }

    public boolean hasNext() {
      while (!current.hasNext()) {
        if (!parts.hasNext()) return false;
        current = parts.next();
      }
      return true;
    }

    public T next() {
      if (!hasNext()) throw new NoSuchElementException();
      return current.next();
    }
  }
}
