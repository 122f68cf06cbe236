// The program that builds a test directory's precompiled headers (tests/CMakeLists.txt,
// rnnwb_test_pch); the tests of that directory reuse them. It runs nothing.
int main() { return 0; }
