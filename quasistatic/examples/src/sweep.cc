#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "tamsi/quasistatic_examples/examples.h"

namespace tamsi::quasistatic::scenes {

std::vector<double> SweepEpsilons(int n_first, int n_last) {
  std::vector<double> eps;
  for (int n = n_first; n <= n_last; ++n) eps.push_back(std::ldexp(1.0, 4 - n));
  return eps;
}

EpsilonSweep RunEpsilonSweep(const std::string& example, const std::vector<double>& epsilons) {
  EpsilonSweep sweep;
  sweep.example = example;
  const SimulationResult reference = MakeExample(example, 0.0).Run();
  sweep.reference = reference.trajectory.object.back();
  sweep.reference_status = reference.summary.status;
  for (double eps : epsilons) {
    const SimulationResult run = MakeExample(example, eps).Run();
    sweep.epsilon.push_back(eps);
    sweep.error.push_back((run.trajectory.object.back() - sweep.reference).norm());
    sweep.status.push_back(run.summary.status);
  }
  return sweep;
}

double LogLogSlope(const EpsilonSweep& sweep, double eps_min, double eps_max) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t i = 0; i < sweep.epsilon.size(); ++i) {
    if (sweep.epsilon[i] < eps_min || sweep.epsilon[i] > eps_max || !(sweep.error[i] > 0.0)) continue;
    const double x = std::log2(sweep.epsilon[i]), y = std::log2(sweep.error[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++n;
  }
  if (n < 2) throw std::invalid_argument("LogLogSlope: fewer than two positive errors in the epsilon range");
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

namespace {

bool RunGnuplot(const std::string& script_path, const std::string& png_path, std::string* note) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    if (note) *note = "gnuplot not found: wrote " + script_path + "; run `gnuplot " + script_path + "` to make the PNG";
    return false;
  }
  const std::string command = "gnuplot '" + script_path + "'";
  if (std::system(command.c_str()) != 0) {
    if (note) *note = "gnuplot failed on " + script_path;
    return false;
  }
  if (note) *note = "wrote " + png_path;
  return true;
}

}  // namespace

void WriteSweepCsv(const std::vector<EpsilonSweep>& sweeps, std::ostream& out) {
  out << "example,epsilon,error,status\n";
  const auto precision = out.precision(12);
  for (const EpsilonSweep& s : sweeps) {
    for (size_t i = 0; i < s.epsilon.size(); ++i) {
      out << s.example << ',' << s.epsilon[i] << ',' << s.error[i] << ',' << ToString(s.status[i]) << '\n';
    }
  }
  out.precision(precision);
}

bool PlotSweep(const std::vector<EpsilonSweep>& sweeps, const std::string& csv_path, const std::string& script_path,
               const std::string& png_path, std::string* note) {
  {
    std::ofstream gp(script_path);
    if (!gp) throw std::runtime_error("cannot write " + script_path);
    gp << "# log-log plot of the final object pose error against the feedback scaling epsilon\n"
       << "set terminal pngcairo size 900,600 enhanced\n"
       << "set output '" << png_path << "'\n"
       << "set datafile separator ','\n"
       << "set logscale xy 2\n"
       << "set format x '2^{%L}'\nset format y '2^{%L}'\n"
       << "set xlabel 'epsilon (feedback scaling)'\n"
       << "set ylabel 'final pose error |q_o^{eps}(T) - q_o^0(T)|'\n"
       << "set key top left\nset grid\n"
       << "f(x) = x\n"
       << "plot ";
    for (size_t i = 0; i < sweeps.size(); ++i) {
      gp << "'" << csv_path << "' using (strcol(1) eq '" << sweeps[i].example << "' ? $2 : 1/0):($3 > 0 ? $3 : 1/0)"
         << " with linespoints title '" << sweeps[i].example << "' noenhanced, ";
    }
    gp << "f(x) with lines dashtype 2 lc rgb 'gray' title 'slope 1'\n";
  }
  return RunGnuplot(script_path, png_path, note);
}

bool PlotTrajectory(const Example& example, const std::string& csv_path, const std::string& script_path,
                    const std::string& png_path, std::string* note) {
  {
    std::ofstream gp(script_path);
    if (!gp) throw std::runtime_error("cannot write " + script_path);
    gp << "# planar paths of the quasi-static example " << example.info.name << "\n"
       << "set terminal pngcairo size 900,700 noenhanced\n"
       << "set output '" << png_path << "'\n"
       << "set datafile separator ','\n"
       << "set size ratio -1\nset grid\nset key outside right\n"
       << "set title '" << example.info.name << " (epsilon = " << example.parameters.epsilon << ")'\n"
       << "set xlabel 'x'\nset ylabel 'y'\n"
       << "plot '" << csv_path << "' using 2:3 every ::1 with lines lw 2 title 'object centre'";
    const auto& names = example.manipulator_names;
    for (size_t j = 0; j + 1 < names.size(); ++j) {
      const std::string& n = names[j];
      if (n.size() > 2 && n.compare(n.size() - 2, 2, "_x") == 0 && names[j + 1] == n.substr(0, n.size() - 2) + "_y") {
        gp << ", '' using " << 5 + j << ":" << 6 + j << " every ::1 with lines title '" << n.substr(0, n.size() - 2)
           << "'";
      }
    }
    gp << "\n";
  }
  return RunGnuplot(script_path, png_path, note);
}

}  // namespace tamsi::quasistatic::scenes
