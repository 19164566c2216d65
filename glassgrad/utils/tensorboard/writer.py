"""SummaryWriter: writes scalars, text and histograms as torch.utils.tensorboard's does (the
same events, the same directories for add_scalars). The other add_* methods need images,
graphs or embeddings glassgrad cannot make yet and raise NotImplementedError."""
import os
import time

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from .summary import histogram, scalar, text


class FileWriter:
    """Events into one directory's event file."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _default_bins():
    """TensorBoard's default bucket limits: +-1e-12 growing by 1.1 up to 1e20, and 0."""
    v, buckets = 1e-12, []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


class SummaryWriter:
    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", now + "_" + socket.gethostname() + comment)
        self.log_dir, self.purge_step = log_dir, purge_step
        self.max_queue, self.flush_secs = max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:     # TensorBoard drops later events of old runs
                step, self.purge_step = self.purge_step, None
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START)))
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        summary = scalar(tag, scalar_value, new_style=new_style,
                         double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each tag's scalar into its own run directory, <logdir>/<main_tag>_<tag>."""
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            if run not in self.all_writers:
                self.all_writers[run] = FileWriter(run, self.max_queue, self.flush_secs,
                                                   self.filename_suffix)
            self.all_writers[run].add_summary(scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins=max_bins),
                                            global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    def flush(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _not_yet(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"SummaryWriter.{name}: glassgrad writes scalars, text and "
                                  "histograms only")
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


for _name in ("add_hparams", "add_image", "add_images", "add_image_with_boxes", "add_figure",
              "add_video", "add_audio", "add_graph", "add_embedding", "add_pr_curve",
              "add_pr_curve_raw", "add_custom_scalars", "add_custom_scalars_multilinechart",
              "add_custom_scalars_marginchart", "add_mesh", "add_tensor", "add_onnx_graph"):
    setattr(SummaryWriter, _name, _not_yet(_name))
del _name
