// The mask generator of graph-format.md: SplitMix64 bit for bit, and the keep rule.
#include <QTest>

#include "rnnwb/core/connection_mask.hpp"

using namespace rnnwb;

class TestConnectionMask : public QObject {
  Q_OBJECT
 private slots:
  void splitMix64MatchesReference();
  void denseConnectionHasFullMask();
  void sparseMaskFollowsTheSpec();
  void maskDensityIsNearRequested();
};

void TestConnectionMask::splitMix64MatchesReference() {
  // Reference outputs of SplitMix64 seeded with 0 and 1234567 (Vigna's splitmix64.c).
  SplitMix64 zero(0);
  QCOMPARE(zero.next(), 0xE220A8397B1DCDAFULL);
  QCOMPARE(zero.next(), 0x6E789E6AA1B965F4ULL);
  QCOMPARE(zero.next(), 0x06C45D188009454FULL);
  SplitMix64 other(1234567);
  QCOMPARE(other.next(), 6457827717110365317ULL);
  QCOMPARE(other.next(), 3203168211198807973ULL);
}

void TestConnectionMask::denseConnectionHasFullMask() {
  Connection c{"a", "x", "y", ConnectionType::Full, 0, 1.0, 5};
  const auto mask = connectionMask(c, 3, 4);
  QCOMPARE(mask.size(), std::size_t(12));
  QCOMPARE(std::count(mask.begin(), mask.end(), 1), 12L);
}

void TestConnectionMask::sparseMaskFollowsTheSpec() {
  Connection c{"a", "x", "y", ConnectionType::Full, 1, 0.3, 7};
  const auto mask = connectionMask(c, 5, 6);
  SplitMix64 rng(7);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) {
      const double u = static_cast<double>(rng.next() >> 11) / 9007199254740992.0;
      QCOMPARE(mask[i * 6 + j], std::uint8_t(u < 0.3 ? 1 : 0));
    }
}

void TestConnectionMask::maskDensityIsNearRequested() {
  Connection c{"a", "x", "y", ConnectionType::Full, 1, 0.1, 3};
  const auto mask = connectionMask(c, 200, 200);
  const double kept = std::count(mask.begin(), mask.end(), 1) / 40000.0;
  QVERIFY2(kept > 0.09 && kept < 0.11, std::to_string(kept).c_str());
  QVERIFY(connectionMask(c, 200, 200) == mask);  // the same seed gives the same mask
}

QTEST_APPLESS_MAIN(TestConnectionMask)
#include "tst_connectionmask.moc"
