/**
 * Wall-clock timing of one compute dispatch on a WebGPU device, the device's own completion as the
 * clock (timestamp queries are optional in WebGPU; this works on every adapter). For tuning and
 * profiles, never for results.
 */
/// <reference types="@webgpu/types" />

/** Milliseconds per dispatch of `pipeline` over `grid`: one warm-up, then `reps` in one pass. */
export async function timeDispatch(
  device: GPUDevice,
  pipeline: GPUComputePipeline,
  group: GPUBindGroup,
  grid: readonly [number, number],
  reps = 3,
): Promise<number> {
  const run = async (n: number) => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    for (let i = 0; i < n; i++) pass.dispatchWorkgroups(grid[0], grid[1]);
    pass.end();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await run(1);
  const t0 = performance.now();
  await run(reps);
  return (performance.now() - t0) / reps;
}
