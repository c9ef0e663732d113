"""SummaryWriter and FileWriter with torch.utils.tensorboard's API, writing TensorBoard event files directly
(no tensorboard, tensorflow or protobuf package needed)."""
import os
import socket
import time
from datetime import datetime

from ._embedding import add_embedding
from ._event_file import _SESSION_LOG_START, EventFileWriter, encode_event
from ._figure import figure_to_image
from ._graph import describe, graph_def, record_graph, run_metadata
from ._hparams import hparams_summaries
from ._pr_curve import pr_curve_raw_value, pr_curve_value
from . import _summaries as summaries

class FileWriter:
    """Writes Event messages for one log directory (one event file)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self._log_dir = str(log_dir)
        self.event_writer = EventFileWriter(self._log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self._log_dir

    def add_event(self, event_bytes):
        self.event_writer.add_event(event_bytes)

    def add_summary(self, summary_bytes, global_step=None, walltime=None):
        walltime = time.time() if walltime is None else walltime
        step = None if global_step is None else int(global_step)
        self.add_event(encode_event(walltime, step, summary=summary_bytes))

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


def _not_implemented(method, why):
    raise NotImplementedError(f"SummaryWriter.{method} is not supported by tandem: {why}")


class SummaryWriter:
    """Writes scalars, histograms, images, matplotlib figures, text, hparams, PR curves, embeddings for the
    projector and the model graph (module-level, see add_graph) for TensorBoard under log_dir (default
    runs/<Mon>DD_HH-MM-SS_<hostname><comment>), as torch.utils.tensorboard.SummaryWriter. Video, audio, mesh and
    custom-scalar layouts raise NotImplementedError."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
                                   + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.default_bins = summaries.tensorflow_bins()
        self._projector_entries = []  # projector_config.pbtxt's embeddings, rewritten whole on each add
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self):
        """The main FileWriter, (re)opened on first use and after close()."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops events at steps >= purge_step logged before this restart
                self.file_writer.add_event(encode_event(time.time(), self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(encode_event(time.time(), self.purge_step,
                                                        session_log_status=_SESSION_LOG_START))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        value = summaries.scalar_value(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each key goes to its own run, <log_dir>/<main_tag with / as _>_<key>, under the tag main_tag, so
        TensorBoard draws them in one chart."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = FileWriter(run_dir, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run_dir] = writer
            writer.add_summary(summaries.summary(summaries.scalar_value(main_tag, value)), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        value = summaries.histogram_value(tag, values, bins, max_bins)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        value = summaries.histogram_raw_value(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        value = summaries.image_value(tag, img_tensor, dataformats)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, tiled into one grid image (8 per row)."""
        value = summaries.image_value(tag, img_tensor, dataformats)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        value = summaries.text_value(tag, text_string)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Writes the hparams plugin's summaries and the metrics as scalars to <log_dir>/<run_name>
        (run_name defaults to the current time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = hparams_summaries(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run_writer:
            for encoded in summaries:
                run_writer.file_writer.add_summary(encoded, global_step)
            for key, value in metric_dict.items():
                run_writer.add_scalar(key, value, global_step)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of same-sized figures, tiled as add_images does) rendered through
        matplotlib's Agg canvas and logged as an RGB image; close=True closes each figure afterwards."""
        dataformats = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats=dataformats)

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        _not_implemented("add_video", "video summaries need a GIF encoder (moviepy); log frames with add_images")

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        _not_implemented("add_audio", "audio summaries are not written")

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The model's graph for TensorBoard's Graphs tab, from one forward pass on input_to_model (a tensor or a
        tuple of arguments) in eval mode: one node per innermost module call, named by its scope
        (Net/Conv2d[conv1]), the inputs and outputs as IO nodes, edges along the data flow. tandem has no tracer,
        so the nodes are modules, not aten ops (docs/compat.md); use_strict_trace has no effect."""
        try:
            nodes = record_graph(model, input_to_model)
        except RuntimeError as e:
            print(e)
            print("Error occurs, No graph saved")
            raise
        if verbose:
            print(describe(nodes))
        writer = self._get_file_writer()
        writer.add_event(encode_event(time.time(), graph_def=graph_def(nodes)))
        writer.add_event(encode_event(time.time(), tagged_run_metadata=("step1", run_metadata())))

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):
        """Writes the embedding projector's files for the N x D matrix mat under
        <log_dir>/<global_step:05d>/<tag>/: tensors.tsv, metadata.tsv (metadata: N labels, or N rows under
        metadata_header) and sprite.png (label_img: N x C x H x W, values in [0, 1]), and lists every embedding
        added so far in <log_dir>/projector_config.pbtxt."""
        add_embedding(self._get_file_writer().get_logdir(), self._projector_entries, mat, metadata, label_img,
                      global_step, tag, metadata_header)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        """Precision-recall curve of binary labels against predictions in [0, 1] at num_thresholds (at most
        127) evenly spaced thresholds, for TensorBoard's PR Curves tab."""
        value = pr_curve_value(tag, labels, predictions, num_thresholds, weights)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds=127,
                         weights=None, walltime=None):
        """A precision-recall curve from precomputed per-threshold counts (weights is unused, as in PyTorch)."""
        value = pr_curve_raw_value(tag, true_positive_counts, false_positive_counts, true_negative_counts,
                                   false_negative_counts, precision, recall, num_thresholds)
        self._get_file_writer().add_summary(summaries.summary(value), global_step, walltime)

    def add_custom_scalars(self, layout):
        _not_implemented("add_custom_scalars", "custom scalar layouts are not written; use add_scalars")

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None,
                 walltime=None):
        _not_implemented("add_mesh", "mesh summaries are not written")

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
