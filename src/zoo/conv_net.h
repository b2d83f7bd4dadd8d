// ConvNetBuilder: Conv/BatchNormalization/activation blocks for the image models, whose BN running
// statistics are measured on a calibration batch while the graph is written.
//
// Why measure: with random conv weights, BatchNormalization at mean 0 / variance 1 would let
// activations grow with every residual block. Statistics predicted analytically (moment
// propagation through Conv, ReLU and pooling; tried first) still drift: small per-layer errors
// compound until BN outputs in ResNet-50's last stage have ~10x the intended variance. A trained
// network's running statistics are the measured per-channel mean and variance of each BN input;
// this builder does the same: every op it writes is also run, with plain reference loops, on a
// small batch of standard-normal images, and each BN gets the batch statistics of its input. So
// on standard-normal inputs every BN output is close to N(beta, gamma^2) per channel, at any depth.
//
// Cost: the calibration batch holds about kCalibrationPixels pixels at min(image_size,
// kMaxCalibrationSize): two images at 224, more at smaller sizes, so that even the last stage's
// smallest maps give each BN channel ~100 samples. That is ~8 GMAC for ResNet-50, about 1.5 s of
// one core (Release). The calibration images come from the seed, so the weights stay a pure
// function of (model, options, seed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zoo/graph_builder.h"

namespace hi::zoo {

// A value in the graph and the activations the calibration batch has there.
struct FeatureMap {
  std::string name;   // graph value
  int64_t batch = 0;  // of the calibration activations, not the graph's batch
  int64_t channels = 0;
  int64_t height = 0;  // of the calibration activations, not the graph's input size
  int64_t width = 0;
  std::vector<float> data;  // [channels, batch, height, width]: channel-major, so that a conv is
                            // one matrix product over all batch positions
};

// "layer1.0.conv1" -> "/layer1/layer1.0/conv1": the scope the PyTorch exporter gives the nodes of
// a module; an index joins the name before it ("layer1.0"), as for Sequential children.
std::string torch_scope(const std::string& module_path);

class ConvNetBuilder {
 public:
  static constexpr int64_t kCalibrationPixels = 2 * 224 * 224;
  static constexpr int64_t kMaxCalibrationSize = 224;

  explicit ConvNetBuilder(GraphBuilder& graph) : g_(graph) {}

  // Graph input "input" float32 [batch, channels, size, size]; calibration images are standard
  // normal.
  FeatureMap input(const ShapeDim& batch, int64_t channels, int64_t size);

  // Conv without bias, weight "<module>.weight" (He-normal), padding kernel / 2.
  FeatureMap conv(const FeatureMap& x, const std::string& module, int64_t out_channels, int64_t kernel, int64_t stride,
                  int64_t groups = 1);
  // BatchNormalization with "<module>.weight/.bias/.running_mean/.running_var".
  FeatureMap batch_norm(const FeatureMap& x, const std::string& module);
  FeatureMap relu(const FeatureMap& x, const std::string& scope);
  FeatureMap relu6(const FeatureMap& x, const std::string& scope);  // Clip(0, 6)
  FeatureMap add(const FeatureMap& a, const FeatureMap& b, const std::string& scope);
  FeatureMap max_pool(const FeatureMap& x, const std::string& scope, int64_t kernel, int64_t stride, int64_t pad);

  // GlobalAveragePool, Flatten, Gemm (weight [classes, channels], "<fc_module>.weight/.bias"),
  // the last output named `output_name` ([batch, classes]).
  void classifier(const FeatureMap& x, const std::string& pool_scope, const std::string& fc_module, int64_t classes,
                  const ShapeDim& batch, const std::string& output_name);

 private:
  FeatureMap clipped(const FeatureMap& x, const std::string& scope, float lo, float hi);
  GraphBuilder& g_;
};

}  // namespace hi::zoo
