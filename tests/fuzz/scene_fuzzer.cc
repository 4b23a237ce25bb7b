// libFuzzer target: the MJCF scene loader and the TAMSI front end. The input picks a model from a grammar of what
// the front end reads (geom types and sizes, `user` contact data, friction, joint types, ranges and limits, tendons,
// equality constraints, actuators, the time step), with hostile values among the ordinary ones (0, negative, huge,
// inf, nan, text); the model is compiled from the generated MJCF text and stepped a few times. Bad input must end in
// the documented errors (ModelLoadError, std::invalid_argument, MujocoError, StepFailedError). Generating MJCF rather
// than mutating raw bytes keeps the fuzzer in tamsi's code instead of MuJoCo's XML parser; an input that starts with
// "<mujoco" is taken as MJCF text as it is (the built-in scenes and the reproducers in the corpus), and the model's
// first keyframe, if any, is the start.
#include <fuzzer/FuzzedDataProvider.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/simulator.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

/// A number as MJCF text: mostly ordinary values in [lo, hi], sometimes a hostile one.
std::string Number(FuzzedDataProvider& in, double lo, double hi) {
  static const char* kHostile[] = {"0", "-1", "1e300", "-1e300", "1e-300", "inf", "-inf", "nan", "x", ""};
  if (in.ConsumeIntegralInRange(0, 15) == 0) return kHostile[in.ConsumeIntegralInRange<int>(0, 9)];
  std::ostringstream s;
  s << in.ConsumeFloatingPointInRange(lo, hi);
  return s.str();
}

std::string Numbers(FuzzedDataProvider& in, int n, double lo, double hi) {
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " " : "") + Number(in, lo, hi);
  return text;
}

std::string Geom(FuzzedDataProvider& in, int index) {
  static const char* kTypes[] = {"sphere", "capsule", "box", "cylinder", "ellipsoid"};
  const char* type = kTypes[in.ConsumeIntegralInRange<int>(0, 4)];
  std::ostringstream g;
  g << "<geom name=\"g" << index << "\" type=\"" << type << "\" size=\"" << Numbers(in, 3, 0.005, 0.1) << "\" pos=\""
    << Numbers(in, 3, -0.05, 0.05) << "\"";
  if (in.ConsumeBool()) g << " user=\"" << Numbers(in, in.ConsumeIntegralInRange(0, 3), 0.0, 1e5) << "\"";
  if (in.ConsumeBool()) g << " friction=\"" << Numbers(in, 3, 0.0, 2.0) << "\"";
  if (in.ConsumeBool()) g << " condim=\"" << (in.ConsumeBool() ? 1 : 3) << "\"";
  if (in.ConsumeBool()) g << " mass=\"" << Number(in, 0.01, 2.0) << "\"";
  g << "/>";
  return g.str();
}

std::string Joint(FuzzedDataProvider& in, int index) {
  static const char* kTypes[] = {"free", "hinge", "slide", "ball"};
  const int type = in.ConsumeIntegralInRange(0, 3);
  std::ostringstream j;
  j << "<joint name=\"j" << index << "\" type=\"" << kTypes[type] << "\"";
  if (type != 0) {
    j << " axis=\"" << Numbers(in, 3, -1.0, 1.0) << "\"";
    if (in.ConsumeBool()) j << " limited=\"true\" range=\"" << Numbers(in, 2, -1.5, 1.5) << "\"";
    if (in.ConsumeBool()) j << " solref=\"" << Numbers(in, 2, 0.001, 0.1) << "\"";
    if (in.ConsumeBool()) j << " solimp=\"" << Numbers(in, 3, 0.0, 1.0) << "\"";
    if (in.ConsumeBool()) j << " damping=\"" << Number(in, 0.0, 10.0) << "\"";
  }
  j << "/>";
  return j.str();
}

std::string Model(FuzzedDataProvider& in) {
  std::ostringstream m;
  m << "<mujoco><option timestep=\"" << Number(in, 1e-4, 1e-2) << "\"/><worldbody>"
    << "<geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>";
  const int bodies = in.ConsumeIntegralInRange(1, 6);
  int geoms = 0, joints = 0;
  for (int b = 0; b < bodies; ++b) {
    m << "<body name=\"b" << b << "\" pos=\"" << Numbers(in, 3, -0.2, 0.2) << "\">";
    const int nj = in.ConsumeIntegralInRange(0, 2);
    for (int k = 0; k < nj; ++k) m << Joint(in, joints++);
    const int ng = in.ConsumeIntegralInRange(1, 3);
    for (int k = 0; k < ng; ++k) m << Geom(in, geoms++);
    m << "<site name=\"s" << b << "\"/></body>";
  }
  m << "</worldbody>";
  if (joints > 0 && in.ConsumeBool()) {
    m << "<tendon><fixed name=\"t0\"";
    if (in.ConsumeBool()) m << " limited=\"true\" range=\"" << Numbers(in, 2, -1.0, 1.0) << "\"";
    m << "><joint joint=\"j0\" coef=\"" << Number(in, -2.0, 2.0) << "\"/></fixed></tendon>";
  }
  if (bodies > 1 && in.ConsumeBool()) {
    m << "<equality>";
    if (in.ConsumeBool()) m << "<connect body1=\"b0\" body2=\"b1\" anchor=\"" << Numbers(in, 3, -0.1, 0.1) << "\"/>";
    if (in.ConsumeBool()) m << "<weld body1=\"b0\" body2=\"b1\"/>";
    if (joints > 1 && in.ConsumeBool())
      m << "<joint joint1=\"j0\" joint2=\"j1\" polycoef=\"" << Numbers(in, 5, -1.0, 1.0) << "\"/>";
    m << "</equality>";
  }
  if (joints > 0 && in.ConsumeBool()) {
    m << "<actuator><motor joint=\"j0\" gear=\"" << Number(in, -10.0, 10.0) << "\"/>";
    if (in.ConsumeBool()) m << "<position joint=\"j0\" kp=\"" << Number(in, 0.0, 100.0) << "\"/>";
    m << "</actuator>";
  }
  m << "</mujoco>";
  return m.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string raw(reinterpret_cast<const char*>(data), size);
  const std::string xml = raw.rfind("<mujoco", 0) == 0 ? raw : Model(in);
  tamsi::scenes::ModelPtr model;
  try {
    model = tamsi::scenes::LoadModelFromString(xml, "fuzz");
  } catch (const tamsi::scenes::ModelLoadError&) {
    return 0;
  }
  tamsi::scenes::SimulatorOptions options;
  options.solver.max_iterations = 20;
  options.max_halvings = 1;
  try {
    const int keyframe = model->nkey > 0 ? 0 : -1;
    tamsi::scenes::Simulator sim(std::move(model), options, keyframe);
    for (int step = 0; step < 3; ++step) {
      for (int u = 0; u < sim.model().nu; ++u) sim.data().ctrl[u] = in.ConsumeFloatingPointInRange(-10.0, 10.0);
      sim.Step();
    }
  } catch (const tamsi::scenes::StepFailedError&) {
  } catch (const tamsi::scenes::MujocoError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
