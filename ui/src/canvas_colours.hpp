#pragma once
// The canvas' colours, taken from the application's palette so that a dark desktop theme gives
// a dark canvas: the background is the palette's Base, text its Text, and each kind's accent
// (blue additive, orange multiplicative, green input, red output, purple delayed and recurrent)
// is tinted into the Base for fills and lightened on a dark Base for lines.
#include <QColor>

namespace rnnwb::ui::canvas {

QColor background();
QColor text();
QColor secondaryText();  // sizes and detail lines
/// A line or border in this accent: as it is on a light background, lighter on a dark one.
QColor line(const QColor& accent);
/// A box's fill in this accent: a light tint on a light background, a dark one on a dark one.
QColor fill(const QColor& accent);
/// Behind a label on a line: the background, nearly opaque.
QColor labelBackground();
/// Plain (undelayed) connections.
QColor plainLine();
bool isDark();

}  // namespace rnnwb::ui::canvas
