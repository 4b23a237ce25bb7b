#include "mjcf_checks.h"

#include <tamsi/scenes/mujoco_model.h>
#include <tinyxml2.h>

#include <fstream>
#include <iomanip>
#include <sstream>
#include <utility>
#include <vector>

namespace tamsi::scenes::internal {
namespace {

struct Scan {
  Scan(const std::filesystem::path& directory, const std::string& name) : directory(directory), name(name) {}

  const std::filesystem::path& directory;
  const std::string& name;
  /// The <compiler>'s meshdir, texturedir and assetdir, and each asset's (tag, file), collected over the text and its
  /// includes: a <compiler> may come after the assets it applies to.
  std::string meshdir, texturedir, assetdir;
  std::vector<std::pair<std::string, std::string>> assets;

  [[noreturn]] void Refuse(const std::string& what) const {
    throw ModelLoadError("cannot load model '" + name + "': " + what);
  }

  // `n` written as a whole number.
  static std::string Count(double n) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(0) << n;
    return text.str();
  }
  // The product of the whitespace-separated counts in `text` (as a double: no overflow), or -1 when one is negative.
  static double Product(const char* text) {
    std::istringstream in(text ? text : "");
    double product = 1;
    for (long long count; in >> count;) product = count < 0 ? -1 : product * static_cast<double>(count);
    return product;
  }

  void Elements(const tinyxml2::XMLElement* e, double replicas, int depth) {
    for (; e != nullptr; e = e->NextSiblingElement()) {
      const std::string tag = e->Name();
      double inner = replicas;
      if (tag == "hfield") {
        const double samples = Product(e->Attribute("nrow")) * Product(e->Attribute("ncol"));
        if (samples > static_cast<double>(kMaxHfieldSamples))
          Refuse("<hfield> asks for " + Count(samples) + " height samples (nrow × ncol), more than tamsi reads (" +
                 Count(kMaxHfieldSamples) + ")");
      } else if (tag == "replicate") {
        inner = replicas * Product(e->Attribute("count"));
        if (inner > static_cast<double>(kMaxReplicas))
          Refuse("nested <replicate> elements ask for " + Count(inner) + " copies, more than tamsi reads (" +
                 Count(kMaxReplicas) + ")");
      } else if (tag == "flexcomp") {
        const double points = Product(e->Attribute("count"));
        if (points > static_cast<double>(kMaxFlexcompPoints))
          Refuse("<flexcomp> asks for " + Count(points) + " points, more than tamsi reads (" +
                 Count(kMaxFlexcompPoints) + ")");
      } else if (tag == "include" && e->Attribute("file") != nullptr) {
        Include(directory / e->Attribute("file"), replicas, depth + 1);
      } else if (tag == "compiler") {
        for (auto [attribute, value] :
             {std::pair{"meshdir", &meshdir}, {"texturedir", &texturedir}, {"assetdir", &assetdir}})
          if (e->Attribute(attribute) != nullptr) *value = e->Attribute(attribute);
      }
      if ((tag == "mesh" || tag == "hfield" || tag == "skin" || tag == "texture") && e->Attribute("file") != nullptr)
        assets.emplace_back(tag, e->Attribute("file"));
      Elements(e->FirstChildElement(), inner, depth);
    }
  }

  void Include(const std::filesystem::path& path, double replicas, int depth) {
    if (depth > kMaxIncludeDepth)
      Refuse("<include> nested deeper than " + std::to_string(kMaxIncludeDepth) + " ('" + path.string() + "')");
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file) return;  // MuJoCo reports it
    Document(text.str(), replicas, depth);
  }

  void Document(const std::string& xml, double replicas, int depth) {
    tinyxml2::XMLDocument document;
    if (document.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) return;  // MuJoCo reports it
    Elements(document.RootElement(), replicas, depth);
  }

  void RefuseFolderAssets() const {
    for (const auto& [tag, file] : assets) {
      const std::string& own = tag == "texture" ? texturedir : meshdir;
      const std::filesystem::path path = directory / (own.empty() ? assetdir : own) / file;
      std::error_code unreadable;  // left for MuJoCo to report
      if (std::filesystem::is_directory(path, unreadable))
        Refuse("the file of <" + tag + "> '" + file + "' is a folder ('" + path.string() + "')");
    }
  }
};

}  // namespace

void CheckMjcfText(const std::string& xml, const std::filesystem::path& directory, const std::string& name) {
  Scan scan(directory, name);
  scan.Document(xml, 1, 0);
  scan.RefuseFolderAssets();
}

}  // namespace tamsi::scenes::internal
