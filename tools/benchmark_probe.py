#!/usr/bin/env python3
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Benchmark host discovery and an idle resource-tracker cycle.

Prints, for this host:
  - the CPU probe through lscpu and through sysfs (the fast path);
  - a full get_capabilities() with each CPU source;
  - one idle resource-tracker cycle (probe, build the ComputeNode values,
    compare with the stored node, decide there is nothing to save).

Usage: python tools/benchmark_probe.py [--runs N]
"""

import argparse
import statistics
import time

import zun_hostcap  # noqa: F401  selects oslo.service's threading backend
from zun_hostcap.compute.container import fake as fake_containers
from zun_hostcap.compute import resource_tracker
from zun_hostcap import objects
from zun_hostcap import os_capability


def _measure(func, runs):
    func()  # warm caches and imports
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples), max(samples)


def _report(name, figures):
    median, low, high = figures
    print('%-44s median %8.3f ms   min %8.3f   max %8.3f' %
          (name, median, low, high))


def _idle_cycle(driver):
    tracker = resource_tracker.ResourceTracker(
        'benchmark-host', driver, fake_containers.FakeContainerDriver())

    def host_values():
        return tracker._host_values(tracker._probe(),
                                    tracker.container_driver.get_usage())
    values = host_values()
    node = objects.ComputeNode(**values)
    node.labels = {}
    node.obj_reset_changes(recursive=True)
    tracker.compute_node = node

    def cycle():
        tracker._apply(node, host_values())
        if node.obj_what_changed():
            # A real change (or drift beyond 1%): count it, start clean.
            node.obj_reset_changes(recursive=True)
    return cycle


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=200)
    args = parser.parse_args()
    objects.register_all()

    lscpu = os_capability.load_driver('linux', cpu_source='lscpu')
    sysfs = os_capability.load_driver('linux', cpu_source='sysfs')
    print('host: %d online CPUs, %d NUMA nodes; %d runs each' % (
        len(sysfs.get_cpu_info().online_cpus),
        len(sysfs.get_numa_topology()), args.runs))
    _report('cpu info via lscpu', _measure(lscpu.get_cpu_info, args.runs))
    _report('cpu info via sysfs', _measure(sysfs.get_cpu_info, args.runs))
    _report('get_capabilities (lscpu)',
            _measure(lscpu.get_capabilities, args.runs))
    _report('get_capabilities (sysfs)',
            _measure(sysfs.get_capabilities, args.runs))
    _report('idle tracker cycle, no RPC (sysfs)',
            _measure(_idle_cycle(sysfs), args.runs))


if __name__ == '__main__':
    main()
