"""Matplotlib figures rendered to image arrays for SummaryWriter.add_figure (matplotlib is imported only here,
on first use, so logging anything else does not need it)."""
import numpy as np


def _render_to_chw(figure, close):
    """The figure drawn by a fresh Agg canvas (whatever backend it was made with), as a uint8 RGB array in CHW."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    width, height = figure.canvas.get_width_height()
    rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(height, width, 4)
    if close:
        plt.close(figure)
    return np.moveaxis(rgba[:, :, :3], 2, 0)


def figure_to_image(figures, close=True):
    """One figure -> CHW; a list of figures -> NCHW (they must be the same size to stack)."""
    if isinstance(figures, list):
        return np.stack([_render_to_chw(figure, close) for figure in figures])
    return _render_to_chw(figures, close)
