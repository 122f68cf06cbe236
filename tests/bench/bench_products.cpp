// The products of the CPU engine's LSTM benchmark shapes (input 128, hidden 256, N = 32, h = 64)
// on each candidate: OpenBLAS's cblas_sgemm, oneDNN's dnnl_sgemm, and oneDNN's matmul primitive
// (made once per shape; and with its weights reordered once into the layout it prefers), on one
// thread; and on two threads, oneDNN's own (OpenMP) threads
// against two threads of ours each multiplying half the rows on one oneDNN thread, meeting after
// every product as the engine's workers do. Then RTRL's per-stream sgemv and sger (one thread):
// OpenBLAS against oneDNN's sgemm with one column or k = 1 (oneDNN has neither of its own).
// Prints one JSON object per shape and candidate.
// Usage: bench_products [SECONDS_PER_CASE]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cblas.h>
#include <omp.h>
#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include "bench_help.hpp"

namespace {

struct Shape {
  const char* name;
  bool transA, transB;
  int m, n, k;
  float beta;
  int lda() const { return transA ? m : k; }
  int ldb() const { return transB ? k : n; }
  double flops() const { return 2.0 * m * n * k; }
};

std::vector<float> a(4096 * 2048, 0.5f), b(a.size(), 0.25f), c(a.size(), 0.0f);

/// GFLOP/s of `product` over about `seconds`, after two untimed calls.
double rate(const Shape& s, double seconds, const std::function<void()>& product) {
  product();
  product();
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  long calls = 0;
  double elapsed = 0;
  while (elapsed < seconds) {
    for (int i = 0; i < 10; ++i) product();
    calls += 10;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return s.flops() * double(calls) / elapsed / 1e9;
}

void dnnlRows(const Shape& s, int firstRow, int rows) {
  const std::size_t offset = std::size_t(firstRow) * (s.transA ? 1 : s.lda());
  dnnl_sgemm(s.transA ? 'T' : 'N', s.transB ? 'T' : 'N', rows, s.n, s.k, 1.0f, a.data() + offset,
             s.lda(), b.data(), s.ldb(), s.beta, c.data() + std::size_t(firstRow) * s.n, s.n);
}

/// A matmul primitive for the shape, made once, with beta as a sum post-op.
std::function<void()> matmulProduct(const Shape& s) {
  using namespace dnnl;
  static engine cpu(engine::kind::cpu, 0);
  static dnnl::stream queue(cpu);
  const auto f32 = memory::data_type::f32;
  memory::desc ad({s.m, s.k}, f32, s.transA ? memory::dims{1, s.lda()} : memory::dims{s.lda(), 1});
  memory::desc bd({s.k, s.n}, f32, s.transB ? memory::dims{1, s.ldb()} : memory::dims{s.ldb(), 1});
  memory::desc cd({s.m, s.n}, f32, memory::dims{s.n, 1});
  post_ops sum;
  if (s.beta != 0.0f) sum.append_sum(s.beta);
  primitive_attr attributes;
  attributes.set_post_ops(sum);
  matmul product(matmul::primitive_desc(matmul::desc(ad, bd, cd), attributes, cpu));
  return [=]() mutable {
    memory am(ad, cpu, a.data()), bm(bd, cpu, b.data()), cm(cd, cpu, c.data());
    product.execute(queue, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  };
}

/// The same primitive with its weights (B) in the layout it prefers (format `any`), reordered once
/// outside the timing, as weights that stay fixed for a chunk could be.
std::function<void()> matmulPrepacked(const Shape& s) {
  using namespace dnnl;
  static engine cpu(engine::kind::cpu, 0);
  static dnnl::stream queue(cpu);
  const auto f32 = memory::data_type::f32;
  memory::desc ad({s.m, s.k}, f32, s.transA ? memory::dims{1, s.lda()} : memory::dims{s.lda(), 1});
  memory::desc bd({s.k, s.n}, f32, s.transB ? memory::dims{1, s.ldb()} : memory::dims{s.ldb(), 1});
  memory::desc anyB({s.k, s.n}, f32, memory::format_tag::any);
  memory::desc cd({s.m, s.n}, f32, memory::dims{s.n, 1});
  post_ops sum;
  if (s.beta != 0.0f) sum.append_sum(s.beta);
  primitive_attr attributes;
  attributes.set_post_ops(sum);
  const matmul::primitive_desc pd(matmul::desc(ad, anyB, cd), attributes, cpu);
  matmul product(pd);
  memory plain(bd, cpu, b.data()), packed(pd.weights_desc(), cpu);
  reorder(plain, packed).execute(queue, plain, packed);
  queue.wait();
  return [=]() mutable {
    memory am(ad, cpu, a.data()), cm(cd, cpu, c.data());
    product.execute(queue, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, cm}});
  };
}

/// Two threads of ours, each half the rows on one oneDNN thread, meeting after every product.
double ownThreads(const Shape& s, double seconds) {
  std::atomic<long> started{0}, finished{0};
  std::atomic<bool> stop{false};
  const int half = s.m / 2;
  std::thread other([&] {
    omp_set_num_threads(1);
    for (long seen = 0;;) {
      while (started.load() == seen && !stop.load()) std::this_thread::yield();
      if (stop.load()) return;
      ++seen;
      dnnlRows(s, half, s.m - half);
      ++finished;
    }
  });
  omp_set_num_threads(1);
  const double gflops = rate(s, seconds, [&] {
    const long target = finished.load() + 1;
    ++started;
    dnnlRows(s, 0, half);
    while (finished.load() < target) std::this_thread::yield();
  });
  stop = true;
  other.join();
  return gflops;
}

/// Microseconds per call of `call`, the best of 5 batches of 200 calls.
double microseconds(const std::function<void()>& call) {
  for (int i = 0; i < 20; ++i) call();
  double best = 1e30;
  for (int batch = 0; batch < 5; ++batch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) call();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count() / 200 * 1e6);
  }
  return best;
}

void benchVectorProducts() {
  openblas_set_num_threads(1);
  omp_set_num_threads(1);
  for (const auto& shape : {std::pair{64, 64}, {256, 256}, {1024, 256}, {256, 1024}}) {
    const int m = shape.first, n = shape.second;  // clang 14 cannot capture structured bindings
    float *w = a.data(), *x = b.data(), *y = c.data();
    const auto print = [&](const char* op, const char* kernel, double us) {
      std::cout << nlohmann::json{{"bench", "vector_products"}, {"op", op}, {"m", m}, {"n", n},
                                  {"kernel", kernel},           {"us", us}}
                       .dump()
                << std::endl;
    };
    print("sgemv", "openblas", microseconds([&] {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0f, w, n, x, 1, 1.0f, y, 1);
          }));
    print("sgemv", "dnnl_sgemm",
          microseconds([&] { dnnl_sgemm('N', 'N', m, 1, n, 1.0f, w, n, x, 1, 1.0f, y, 1); }));
    print("sger", "openblas",
          microseconds([&] { cblas_sger(CblasRowMajor, m, n, 1.0f, x, 1, y, 1, w, n); }));
    print("sger", "dnnl_sgemm",
          microseconds([&] { dnnl_sgemm('N', 'N', m, n, 1, 1.0f, x, 1, y, n, 1.0f, w, n); }));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv,
                       "Usage: bench_products [SECONDS_PER_CASE]\nThe CPU engine's product "
                       "shapes on OpenBLAS, oneDNN's sgemm and its matmul primitive.\n"))
    return 0;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  const Shape shapes[] = {
      {"step forward h x 4h", false, false, 32, 1024, 256, 1.0f},
      {"step backward 4h x h", false, true, 32, 256, 1024, 1.0f},
      {"inputs, all frames", false, false, 2048, 1024, 128, 0.0f},
      {"output, all frames", false, false, 2048, 128, 256, 0.0f},
      {"weight gradient 4h x h", true, false, 256, 1024, 2048, 1.0f},
      {"square 1024", false, false, 1024, 1024, 1024, 0.0f},
  };
  for (const Shape& s : shapes) {
    const auto print = [&](const char* kernel, int threads, double gflops) {
      std::cout << nlohmann::json{{"bench", "products"},
                                  {"shape", s.name},
                                  {"m", s.m},
                                  {"n", s.n},
                                  {"k", s.k},
                                  {"kernel", kernel},
                                  {"threads", threads},
                                  {"gflops", gflops}}
                       .dump()
                << std::endl;
    };
    openblas_set_num_threads(1);
    print("openblas", 1, rate(s, seconds, [&] {
            cblas_sgemm(CblasRowMajor, s.transA ? CblasTrans : CblasNoTrans,
                        s.transB ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, a.data(),
                        s.lda(), b.data(), s.ldb(), s.beta, c.data(), s.n);
          }));
    omp_set_num_threads(1);
    print("dnnl_sgemm", 1, rate(s, seconds, [&] { dnnlRows(s, 0, s.m); }));
    print("dnnl_matmul", 1, rate(s, seconds, matmulProduct(s)));
    print("dnnl_matmul_prepacked", 1, rate(s, seconds, matmulPrepacked(s)));
    omp_set_num_threads(2);
    print("dnnl_sgemm", 2, rate(s, seconds, [&] { dnnlRows(s, 0, s.m); }));
    print("dnnl_sgemm_own_threads", 2, ownThreads(s, seconds));
  }
  benchVectorProducts();
  return 0;
}
