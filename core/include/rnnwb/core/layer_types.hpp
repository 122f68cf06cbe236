#pragma once
// The enumerations of the graph format, apart from graph.hpp so that device code (C++17 under
// nvcc, no nlohmann-json) can include them through activation_math.hpp.

namespace rnnwb {

enum class LayerKind { Input, Additive, Multiplicative };
enum class Activation { Identity, Sigmoid, Tanh, Relu, Softmax };
enum class LossKind { None, CrossEntropy, Mse, Ctc };  // Ctc: version 2
// Complement and Block: version 2.
enum class ConnectionType { Full, Diagonal, Identity, Complement, Block };
// Which axis a connection sums over (version 2's "reduce"); None: it sums over nothing.
enum class ReduceAxis { None, Y };

}  // namespace rnnwb
