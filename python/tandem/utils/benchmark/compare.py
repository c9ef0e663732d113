"""Compare: measurements as text tables, one per label: a row per (num_threads, env, sub_label or stmt), a
column per description, medians in one unit per table, as torch.utils.benchmark.Compare prints them."""
import collections
import enum
import math

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class _Column:
    """How one column prints its numbers: enough integer digits for its largest median and, when trimming,
    the decimals its least precise measurement supports."""

    def __init__(self, grouped_results, time_scale, trim_significant_figures, highlight_warnings):
        self._grouped_results = grouped_results
        flat = [r for group in grouped_results for r in group]
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = {id(r): math.ceil(math.log10(r.median / time_scale)) for r in flat if r}
        unit_digits = max(leading.values())
        decimals = min(max(r.significant_figures - leading[id(r)], 0) for r in flat if r) if self._trim else 1
        width = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{width}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        flag = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, flag)


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize, num_threads=None):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._columns = ()
        self._num_threads = num_threads

    def register_columns(self, columns):
        self._columns = columns

    def as_column_strings(self):
        first = next(r for r in self._results if r is not None)
        env = (f"({first.env})" if self._render_env else "").ljust(self._env_str_len + 4)
        out = ["  " + env + first.as_row_name]
        for m, col in zip(self._results, self._columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                out.append(col.num_to_str(m.median / self._time_scale, m.significant_figures,
                                          m.iqr / m.median if m.has_warnings else None))
        return out

    @staticmethod
    def color_segment(segment, value, best):
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, overall_width):
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")] if self._num_threads is not None else []

    def finalize_column_strings(self, column_strings, col_widths):
        if self._colorize == Colorize.ROWWISE:
            row_best = min(r.median for r in self._results if r is not None)
            best = [row_best] * len(column_strings)
        elif self._colorize == Colorize.COLUMNWISE:
            best = []
            for col in self._columns:
                medians = [r.median for r in col.get_results_for(self._row_group) if r is not None]
                best.append(min(medians) if medians else None)
        else:
            best = [-1] * len(column_strings)
        cells = [column_strings[0].ljust(col_widths[0])]
        for text, width, result, b in zip(column_strings[1:], col_widths[1:], self._results, best):
            text = text.center(width)
            if self._colorize != Colorize.NONE and result is not None and b is not None:
                text = self.color_segment(text, result.median, b)
            cells.append(text)
        return cells


class Table:
    """The measurements of one label."""

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique(self.row_fn(r) for r in results)
        self.row_keys.sort(key=lambda k: k[:2])  # by threads and env; stable, so statements keep their order
        self.column_keys = common.ordered_unique(self.col_fn(r) for r in results)
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def populate_rows_and_columns(self):
        grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        row_at = {k: i for i, k in enumerate(self.row_keys)}
        col_at = {k: j for j, k in enumerate(self.column_keys)}
        for r in self.results:
            grid[row_at[self.row_fn(r)]][col_at[self.col_fn(r)]] = r
        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env = -1, ""
        for (threads, env, _), row in zip(self.row_keys, grid):
            new_group = threads != prior_threads
            if new_group:  # a "N threads: ----" separator starts each thread count
                prior_threads, prior_env = threads, ""
                groups.append([])
            rows.append(_Row(row, len(groups) - 1, render_env and env != prior_env, env_len, self.time_scale,
                             self._colorize, threads if new_group else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(_Column([tuple(row[j] for row in g) for g in groups], self.time_scale, self._trim,
                                self._highlight) for j in range(len(self.column_keys)))
        for row in rows:
            row.register_columns(columns)
        return tuple(rows), columns

    def render(self):
        # A column of measurements without a description gets an empty heading (PyTorch raises a TypeError).
        headings = ["" if k is None else k for k in self.column_keys]
        string_rows = [[""] + headings] + [r.as_column_strings() for r in self.rows]
        ncols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (ncols - len(r)))
        widths = [max(len(cell) for cell in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(cell.center(w) for cell, w in zip(string_rows[0], widths))]
        overall = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(overall))
            lines.append("  |  ".join(row.finalize_column_strings(strings, widths)))
        warn = self._highlight and any(r.has_warnings for r in self.results)
        title = f" {self.label or ''} ".center(overall - 2, "-")
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warn else ""
        body = "\n".join(lines)
        return (f"[{title}]\n{body}\n\nTimes are in {common.unit_to_english(self.time_unit)}s "
                f"({self.time_unit}).\n{note}")


class Compare:
    """Compare(results).print(): a table per label of the measurements' medians (replicates of one TaskSpec are
    merged). trim_significant_figures, colorize(rowwise) and highlight_warnings change how it prints."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]
