"""Pictures: boards as SVG and PNG, matches as animated GIF, charts.

* :mod:`kamisado.pictures.svg`: a position as SVG (the board picture).
* :mod:`kamisado.pictures.render`: the same picture as PNG.
* :mod:`kamisado.pictures.gif`: a match record as an animated GIF.
* :mod:`kamisado.pictures.graph`: charts (evaluation curves, Elo, ratings).

Pictures draw what the rules describe and numbers they are given; they do
not run the engine.
"""
