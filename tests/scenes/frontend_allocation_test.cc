// The front end's steady state allocates nothing: ContactProblemBuilder::Build with an unchanged contact count, and
// Simulator::Step on the gripper beyond its TAMSI solve. Counted by interposing malloc and its relatives in this test
// binary, so that operator new, Eigen's std::malloc, MuJoCo's mju_malloc and SuiteSparse are all seen.
#include <gtest/gtest.h>
#include <malloc.h>
#include <tamsi/scenes/mujoco_model.h>
#include <tamsi/scenes/scene_library.h>
#include <tamsi/scenes/simulator.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* p);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void Count() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t size) {
  Count();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Count();
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  Count();
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** p, size_t alignment, size_t size) {
  Count();
  *p = __libc_memalign(alignment, size);
  return *p || size == 0 ? 0 : ENOMEM;
}
void free(void* p) { __libc_free(p); }
}

namespace tamsi::scenes {
namespace {

long CountAllocations(const std::function<void()>& work) {
  allocations = 0;
  counting = true;
  work();
  counting = false;
  return allocations.load();
}

// The instrument itself: malloc, operator new and MuJoCo's allocator are all seen.
TEST(AllocationCounter, SeesMallocNewAndMujocoAllocations) {
  void* raw = nullptr;
  std::vector<double>* vector = nullptr;
  void* mujoco = nullptr;
  EXPECT_EQ(CountAllocations([&] { raw = std::malloc(64); }), 1);
  EXPECT_EQ(CountAllocations([&] { vector = new std::vector<double>(16); }), 2);
  EXPECT_EQ(CountAllocations([&] { mujoco = mju_malloc(64); }), 1);
  std::free(raw);
  delete vector;
  mju_free(mujoco);
}

std::unique_ptr<Simulator> Gripper() {
  Scene scene = LoadScene("gripper_mug_shake");
  SimulatorOptions options;
  options.contact = scene.contact;
  options.solver.stiction_tolerance = scene.stiction_tolerance;
  return std::make_unique<Simulator>(std::move(scene.model), options, 0, scene.controller);
}

TEST(FrontEndAllocations, BuildWithAnUnchangedContactCountAllocatesNothing) {
  auto sim = Gripper();
  for (int n = 0; n < 10; ++n) sim->Step();
  ContactProblemBuilder builder(sim->model(), sim->options().contact);
  ContactProblem problem;
  ASSERT_TRUE(builder.Build(sim->model(), &sim->data(), sim->time_step(), &problem));  // sizes its scratch
  for (int n = 0; n < 20; ++n) {
    sim->Step();
    bool built = false;
    EXPECT_EQ(CountAllocations([&] { built = builder.Build(sim->model(), &sim->data(), sim->time_step(), &problem); }),
              0)
        << "step " << n;
    ASSERT_TRUE(built);
    ASSERT_EQ(problem.num_contacts(), 16);
  }
}

// A box resting on the floor beside two slides held together by a joint equality: a model with constraint rows.
std::unique_ptr<Simulator> BoxAndCoupledSlides() {
  const char* xml = R"(<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 0.049"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body pos="0.5 0 0.5"><joint name="a" type="slide" axis="1 0 0"/><geom type="sphere" size="0.05" mass="1"/></body>
    <body pos="0.5 0.3 0.5"><joint name="b" type="slide" axis="1 0 0"/><geom type="sphere" size="0.05" mass="1"/></body>
    </worldbody><equality><joint joint1="a" joint2="b"/></equality></mujoco>)";
  return std::make_unique<Simulator>(LoadModelFromString(xml, "box_and_coupled_slides"), SimulatorOptions());
}

// A whole TAMSI step allocates what its solve allocates and nothing more (the solver's own count is its concern,
// allocation_test's): the gripper (16 contacts), and a model with an equality (its substeps advance g0 by h Jb v).
class StepAllocations : public ::testing::TestWithParam<int> {};

TEST_P(StepAllocations, AStepAllocatesOnlyWhatTheSolverAllocates) {
  auto sim = GetParam() == 0 ? Gripper() : BoxAndCoupledSlides();
  for (int n = 0; n < 10; ++n) sim->Step();
  ASSERT_GT(sim->last_problem().num_contacts(), 0);
  if (GetParam() == 1) {
    ASSERT_GT(sim->last_problem().num_constraints(), 0);
  }
  TamsiSolver solver(sim->options().solver);
  Result result;
  for (int n = 0; n < 2; ++n) solver.Solve(sim->last_problem(), &result);  // structure, analyses, workspaces
  for (int n = 0; n < 20; ++n) {
    StepInfo info;
    const long step = CountAllocations([&] { info = sim->Step(); });
    ASSERT_EQ(info.solves, 1);
    const long solve = CountAllocations([&] { solver.Solve(sim->last_problem(), &result); });
    EXPECT_EQ(step, solve) << "step " << n;
  }
}
INSTANTIATE_TEST_SUITE_P(Models, StepAllocations, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == 0 ? "Gripper" : "BoxAndCoupledSlides";
                         });

}  // namespace
}  // namespace tamsi::scenes
