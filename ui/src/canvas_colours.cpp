#include "canvas_colours.hpp"

#include <QApplication>
#include <QPalette>

namespace rnnwb::ui::canvas {
namespace {

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                          float(a.greenF() * (1 - t) + b.greenF() * t),
                          float(a.blueF() * (1 - t) + b.blueF() * t));
}

}  // namespace

QColor background() { return QApplication::palette().color(QPalette::Base); }
QColor text() { return QApplication::palette().color(QPalette::Text); }
QColor secondaryText() { return mix(text(), background(), 0.3); }
bool isDark() { return background().lightness() < 128; }

QColor line(const QColor& accent) { return isDark() ? mix(accent, Qt::white, 0.35) : accent; }

QColor fill(const QColor& accent) { return mix(background(), accent, isDark() ? 0.3 : 0.17); }

QColor labelBackground() {
  QColor colour = background();
  colour.setAlpha(230);
  return colour;
}

QColor plainLine() { return mix(text(), background(), 0.25); }

}  // namespace rnnwb::ui::canvas
