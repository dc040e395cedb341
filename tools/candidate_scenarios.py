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

"""The allocation candidate scenarios of ``bench_placement.py --candidates``.

Each scenario is a provider forest, loaded identically into both
services through their APIs, and the GET /allocation_candidates queries
timed on it (issue 23's targets, ratio ours/theirs of requests per
second):

a. perfload, flat: 1,000 providers (VCPU 32 with max_unit 16, MEMORY_MB
   8192, DISK_GB 8192, 1-3 of 5 aggregates, 1-3 of 5 traits), with and
   without limit=1000. Target 5x.
b. perfload, nested: 1,000 trees of 7 providers (a compute with DISK_GB
   and COMPUTE_VOLUME_MULTI_ATTACH; two NUMA nodes with VCPU, MEMORY_MB
   and CUSTOM_FOO; under each an FPGA and a VGPU provider), the granular
   and same_subtree query of Placement's nested perfload job. Target 5x.
c. wide trees: 2 computes x 8 PFs x 8 VFs (CUSTOM_VF, one unit each),
   6 and 8 one-unit groups, group_policy=isolate, limit=1000; Placement
   with its defaults and with its recommended settings
   (max_allocation_candidates 100000, breadth-first,
   optimize_for_wide_provider_trees). Target: ours at most 100 ms, with
   no option set; the servers' peak RSS is shown.
d. 10,000 empty computes, randomize_allocation_candidates on both:
   limit=1000, and all of them. Target 5x.
e. DISK_GB from shared pools: 1,000 computes (VCPU, MEMORY_MB) in 10
   aggregates, each with a sharing provider of DISK_GB. Target 5x.
f. the scheduler loop, modelled on Nova's scheduler: 8 client threads
   each GET candidates with a limit (20), pick one at random among the
   first ``host_subset_size`` (1, Nova's default), PUT it as a new
   consumer's allocations, and on a 409 claim the next alternate in the
   answer's order, on 200 computes of 4 VCPU, until the cloud is full;
   with randomize_allocation_candidates off and on, on both servers.
   Successful placements per second; target 5x; no provider may end
   over its capacity.
g. mixed: in one aggregate, 600 flat computes that already hold
   allocations (their DISK_GB from the pool), 200 NUMA trees (a compute
   root, two NUMA nodes with VCPU and MEMORY_MB) and a shared DISK_GB
   pool; an unsuffixed query, the same with limit=1000, and two granular
   groups. Target 5x.
h. 50,000 empty computes, the queries of (d): with (d), how the time
   grows with the providers stored and with those returned. Long to
   load (100,000 writes a side): run only when named (``--candidates
   dh``).

The data is made from a fixed random seed: the same on both sides.
``scale`` (``--quick``: a fiftieth) shrinks every forest, for a smoke
run: a few providers, the same shapes, the same queries.
"""

import random
import statistics
import threading
import time
import urllib.parse
import uuid

SEED = 20261126
# The forests of a smoke run (--quick), against the full ones.
QUICK_SCALE = 0.02
LOAD_THREADS = 8
PROJECT_ID = '6f1a7b3c2d4e4f5a8b9c0d1e2f3a4b5c'
USER_ID = '0a1b2c3d4e5f40718293a4b5c6d7e8f9'

# Placement's recommended settings for wide provider trees.
PLACEMENT_RECOMMENDED = {
    'placement': {'max_allocation_candidates': '100000',
                  'allocation_candidates_generation_strategy':
                      'breadth-first'},
    'workarounds': {'optimize_for_wide_provider_trees': 'true'},
}
RANDOMIZE = {'placement': {'randomize_allocation_candidates': 'true'}}


def _uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class Provider(object):
    def __init__(self, rng, name, parent=None, inventory=None, traits=(),
                 aggregates=()):
        self.uuid = _uuid(rng)
        self.name = name
        self.parent = parent
        self.inventory = inventory or {}
        self.traits = list(traits)
        self.aggregates = list(aggregates)


class Query(object):
    """One timed GET.

    :param iterations: timed requests after the first (which checks the
        answer) and a warm-up (time_alternately); fewer when the first took
        long.
    """

    # Timed requests of every query at most (--quick: a smoke run).
    most_iterations = None

    def __init__(self, label, params, iterations=20, target=5.0,
                 max_ms=None):
        self.label = label
        self.path = '/allocation_candidates?' + urllib.parse.urlencode(
            params, safe=':,!')
        self.iterations = min(iterations, self.most_iterations or iterations)
        self.target = target
        self.max_ms = max_ms


class Scenario(object):
    """A forest and its queries; ``variants`` of Placement's config."""

    key = None
    title = None
    custom_classes = ()
    custom_traits = ()
    ours_config = {}
    # (label, extra configuration of Placement)
    variants = (('', {}),)
    # A server (and a load) for each query: for queries that may time out.
    server_per_query = False
    # Run by --candidates without letters; else only when named.
    by_default = True
    # Ours is served once with ours_config, unless this is True: then
    # once per variant, with the variant's configuration too.
    ours_follows_variants = False
    # Whether the floor of each query (candidates_floor) is measured on
    # our loaded database.
    floor = False

    def __init__(self, scale=1.0):
        self.scale = scale
        self.rng = random.Random(SEED)
        # (consumer uuid, {provider uuid: {class: amount}}), made after
        # the providers.
        self.allocations = []
        self.providers = self.forest()

    def size(self, count, least=2):
        """``count`` providers (or trees) at this scenario's scale."""
        return max(least, int(count * self.scale))

    def forest(self):
        raise NotImplementedError

    def queries(self):
        raise NotImplementedError


class FlatPerfload(Scenario):
    key = 'a'
    title = 'perfload, flat: 1,000 providers'
    floor = True
    TRAITS = ('HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE',
              'HW_CPU_X86_SSE2', 'STORAGE_DISK_SSD')

    def forest(self):
        rng = self.rng
        self.aggregates = [_uuid(rng) for _ in range(5)]
        return [Provider(
            rng, 'flat-%04d' % i,
            inventory={'VCPU': {'total': 32, 'max_unit': 16},
                       'MEMORY_MB': {'total': 8192},
                       'DISK_GB': {'total': 8192}},
            traits=rng.sample(self.TRAITS, rng.randint(1, 3)),
            aggregates=rng.sample(self.aggregates, rng.randint(1, 3)))
            for i in range(self.size(1000, least=10))]

    def queries(self):
        params = {'resources': 'VCPU:1,DISK_GB:10,MEMORY_MB:256',
                  'member_of': self.aggregates[0],
                  'required': 'HW_CPU_X86_AVX2'}
        return [Query('(a) flat, member_of + required', params),
                Query('(a) flat, same, limit=1000',
                      dict(params, limit=1000))]


class NestedPerfload(Scenario):
    key = 'b'
    title = 'perfload, nested: 1,000 trees of 7 providers'
    custom_traits = ('CUSTOM_FOO',)

    def forest(self):
        rng = self.rng
        providers = []
        for i in range(self.size(1000)):
            compute = Provider(rng, 'cn-%04d' % i,
                               inventory={'DISK_GB': {'total': 20480}},
                               traits=['COMPUTE_VOLUME_MULTI_ATTACH'])
            providers.append(compute)
            for n in (0, 1):
                numa = Provider(
                    rng, 'cn-%04d-numa%d' % (i, n), parent=compute.uuid,
                    inventory={'VCPU': {'total': 16},
                               'MEMORY_MB': {'total': 65536}},
                    traits=['HW_NUMA_ROOT', 'CUSTOM_FOO'])
                providers.append(numa)
                providers.append(Provider(
                    rng, 'cn-%04d-numa%d-fpga' % (i, n), parent=numa.uuid,
                    inventory={'FPGA': {'total': 2}}))
                providers.append(Provider(
                    rng, 'cn-%04d-numa%d-vgpu' % (i, n), parent=numa.uuid,
                    inventory={'VGPU': {'total': 8}}))
        return providers

    def queries(self):
        return [Query('(b) nested, granular + same_subtree', {
            'resources': 'DISK_GB:10',
            'required': 'COMPUTE_VOLUME_MULTI_ATTACH',
            'resources_COMPUTE': 'VCPU:1,MEMORY_MB:256',
            'required_COMPUTE': 'CUSTOM_FOO',
            'resources_FPGA': 'FPGA:1',
            'group_policy': 'none',
            'same_subtree': '_COMPUTE,_FPGA'}, iterations=10)]


class WideTrees(Scenario):
    key = 'c'
    title = 'wide trees: 2 computes x 8 PFs x 8 VFs'
    custom_classes = ('CUSTOM_VF',)
    variants = (('defaults', {}),
                ('recommended settings', PLACEMENT_RECOMMENDED))
    server_per_query = True

    def forest(self):
        rng = self.rng
        providers = []
        for i in range(2):
            compute = Provider(rng, 'wide-cn%d' % i, inventory={
                'VCPU': {'total': 32}, 'MEMORY_MB': {'total': 65536}})
            providers.append(compute)
            providers.extend(Provider(
                rng, 'wide-cn%d-pf%d' % (i, p), parent=compute.uuid,
                inventory={'CUSTOM_VF': {'total': 8}})
                for p in range(self.size(8)))
        return providers

    def queries(self):
        queries = []
        for groups in ((6, 8) if self.scale == 1 else (2,)):
            params = {'resources_VF%d' % g: 'CUSTOM_VF:1'
                      for g in range(1, groups + 1)}
            params.update(group_policy='isolate', limit=1000)
            queries.append(Query(
                '(c) wide, %d one-unit groups, isolate, limit=1000' % groups,
                params, iterations=20, target=None, max_ms=100.0))
        return queries


class ManyEmpty(Scenario):
    key = 'd'
    title = '10,000 empty computes, randomized'
    ours_config = RANDOMIZE
    variants = (('randomize', RANDOMIZE),)
    COMPUTES = 10000

    def forest(self):
        return [Provider(self.rng, 'empty-%05d' % i, inventory={
            'VCPU': {'total': 32}, 'MEMORY_MB': {'total': 65536},
            'DISK_GB': {'total': 2048}})
            for i in range(self.size(self.COMPUTES, least=20))]

    def queries(self):
        params = {'resources': 'VCPU:1,MEMORY_MB:512,DISK_GB:10'}
        limit = min(1000, len(self.providers) // 2)
        return [
            Query('(%s) %s computes, limit=%d, randomized' % (
                self.key, '{:,}'.format(len(self.providers)), limit),
                dict(params, limit=limit), iterations=10),
            Query('(%s) %s computes, all, randomized' % (
                self.key, '{:,}'.format(len(self.providers))),
                params, iterations=3)]


class FiftyThousand(ManyEmpty):
    key = 'h'
    title = '50,000 empty computes, randomized'
    COMPUTES = 50000
    by_default = False


class SharedPools(Scenario):
    key = 'e'
    title = 'DISK_GB from 10 shared pools, 1,000 computes'
    floor = True

    def forest(self):
        rng = self.rng
        providers = []
        pools = [_uuid(rng) for _ in range(10)]
        for p, agg in enumerate(pools):
            providers.append(Provider(
                rng, 'pool-%d' % p, inventory={'DISK_GB': {'total': 100000}},
                traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[agg]))
        for i in range(self.size(1000, least=20)):
            providers.append(Provider(
                rng, 'shared-cn-%04d' % i, aggregates=[pools[i % 10]],
                inventory={'VCPU': {'total': 32},
                           'MEMORY_MB': {'total': 65536}}))
        return providers

    def queries(self):
        return [Query('(e) DISK_GB from shared pools', {
            'resources': 'VCPU:1,MEMORY_MB:512,DISK_GB:10'}, iterations=10)]


class SchedulerLoop(Scenario):
    key = 'f'
    title = 'the scheduler loop, 8 threads, 200 computes of 4 VCPU'
    THREADS = 8
    CAPACITY = 4
    # Nova: [scheduler] max_placement_results (here less than the
    # computes), [filter_scheduler] host_subset_size (its default).
    LIMIT = 20
    HOST_SUBSET_SIZE = 1
    variants = (('defaults', {}), ('randomize', RANDOMIZE))
    # Each variant's configuration is given to ours as well.
    ours_follows_variants = True

    def forest(self):
        return [Provider(self.rng, 'loop-%03d' % i, inventory={
            'VCPU': {'total': self.CAPACITY},
            'MEMORY_MB': {'total': 16384}})
            for i in range(self.size(200, least=8))]

    def queries(self):
        return []

    @property
    def placements(self):
        return len(self.providers) * self.CAPACITY


class Mixed(Scenario):
    key = 'g'
    title = ('mixed: 600 computes holding allocations, 200 NUMA trees, '
             'a DISK_GB pool, one aggregate')
    floor = True

    def forest(self):
        rng = self.rng
        aggregate = _uuid(rng)
        pool = Provider(rng, 'mixed-pool',
                        inventory={'DISK_GB': {'total': 200000}},
                        traits=['MISC_SHARES_VIA_AGGREGATE'],
                        aggregates=[aggregate])
        providers = [pool]
        for i in range(self.size(600, least=6)):
            compute = Provider(rng, 'mixed-cn-%04d' % i, inventory={
                'VCPU': {'total': 32}, 'MEMORY_MB': {'total': 65536}},
                aggregates=[aggregate])
            providers.append(compute)
            vcpus = rng.randint(1, 16)
            self.allocations.append((_uuid(rng), {
                compute.uuid: {'VCPU': vcpus, 'MEMORY_MB': 2048 * vcpus},
                pool.uuid: {'DISK_GB': 20 * vcpus}}))
        for i in range(self.size(200)):
            root = Provider(rng, 'mixed-numa-%04d' % i,
                            aggregates=[aggregate])
            providers.append(root)
            providers.extend(Provider(
                rng, 'mixed-numa-%04d-node%d' % (i, n), parent=root.uuid,
                inventory={'VCPU': {'total': 16},
                           'MEMORY_MB': {'total': 32768}},
                traits=['HW_NUMA_ROOT']) for n in (0, 1))
        return providers

    def queries(self):
        unsuffixed = {'resources': 'VCPU:1,MEMORY_MB:512,DISK_GB:10'}
        return [
            Query('(g) mixed, unsuffixed', unsuffixed, iterations=10),
            Query('(g) mixed, unsuffixed, limit=1000',
                  dict(unsuffixed, limit=1000), iterations=10),
            # No unsuffixed group: with one served by sharing providers
            # alone, Placement keeps one tree's candidates only (its
            # known mistake, doc/source/admin/placement-candidates.rst).
            Query('(g) mixed, granular, group_policy=none', {
                'resources_DISK': 'DISK_GB:20',
                'resources_COMPUTE': 'VCPU:2,MEMORY_MB:2048',
                'group_policy': 'none'}, iterations=10)]


SCENARIOS = [FlatPerfload, NestedPerfload, WideTrees, ManyEmpty,
             SharedPools, SchedulerLoop, Mixed, FiftyThousand]


# Loading

def _retrying(call, attempts=100):
    """``call()``, again while the server says its SQLite file is busy.

    Placement answers concurrent writers on SQLite with a 500 "database
    is locked"; loading goes on once the other writer is done. On a
    quiet machine the 8 loading threads collide more often: the wait
    grows to 0.2 s.
    """
    for attempt in range(attempts):
        try:
            return call()
        except Exception as exc:   # noqa: B902  the bench's StepError
            if 'database is locked' not in str(exc) or \
                    attempt == attempts - 1:
                raise
            time.sleep(min(0.2, 0.01 * (attempt + 1)))


def _parallel(make_client, work, threads=None):
    """Run the callables ``work`` (each given a client) on threads."""
    threads = threads or LOAD_THREADS
    items = list(work)
    errors = []
    lock = threading.Lock()

    def worker():
        client = make_client()
        try:
            while True:
                with lock:
                    if not items or errors:
                        return
                    item = items.pop()
                try:
                    item(client)
                except Exception as exc:   # noqa: B902  reported below
                    with lock:
                        errors.append(exc)
        finally:
            client.close()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]


def load(scenario, make_client):
    """Make the scenario's classes, traits and providers through the API."""
    client = make_client()
    try:
        for name in scenario.custom_classes:
            client.call('PUT', '/resource_classes/%s' % name,
                        expect=(201, 204))
        for name in scenario.custom_traits:
            client.call('PUT', '/traits/%s' % name, expect=(201, 204))
    finally:
        client.close()

    def make(provider):
        def op(client):
            body = {'name': provider.name, 'uuid': provider.uuid}
            if provider.parent:
                body['parent_provider_uuid'] = provider.parent
            _retrying(lambda: client.call('POST', '/resource_providers',
                                          body))
            base = '/resource_providers/%s' % provider.uuid
            writes = []
            if provider.inventory:
                writes.append(('/inventories', 'inventories',
                               provider.inventory))
            if provider.traits:
                writes.append(('/traits', 'traits', provider.traits))
            if provider.aggregates:
                writes.append(('/aggregates', 'aggregates',
                               provider.aggregates))
            for generation, (path, key, value) in enumerate(writes):
                _retrying(lambda: client.call('PUT', base + path, {
                    'resource_provider_generation': generation,
                    key: value}))
        return op
    # Parents before children: a depth at a time.
    depth = {}
    for provider in scenario.providers:
        depth[provider.uuid] = (depth[provider.parent] + 1
                                if provider.parent else 0)
    for level in sorted(set(depth.values())):
        _parallel(make_client, [make(p) for p in scenario.providers
                                if depth[p.uuid] == level])
    # One writer: the allocations share the pool's generation.
    client = make_client()
    try:
        for consumer, allocations in scenario.allocations:
            _retrying(lambda: client.call(
                'PUT', '/allocations/%s' % consumer, {
                    'allocations': {rp: {'resources': resources}
                                    for rp, resources in allocations.items()},
                    'project_id': PROJECT_ID, 'user_id': USER_ID,
                    'consumer_generation': None,
                    'consumer_type': 'INSTANCE'}, expect=(204,)))
    finally:
        client.close()


# Measuring

class Figures(object):
    """The figures of one query (or the loop) on one server."""

    def __init__(self, error=None):
        self.error = error
        self.latencies = []
        self.seconds = 0.0
        self.ops = 0
        self.candidates = None
        self.rss_mb = None
        self.timed_out = False
        self.conflicts = 0
        self.over = None
        # candidates_floor.Floor of the query (ours), or why it is not.
        self.floor = None

    @property
    def rate(self):
        if self.error or not self.ops or not self.seconds:
            return None
        return self.ops / self.seconds

    @property
    def p50(self):
        if self.error or not self.latencies:
            return None
        return statistics.median(self.latencies) * 1000.0


def peak_rss_mb(pid):
    """The peak resident set size of process ``pid`` (VmHWM), in MiB."""
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


# Untimed requests of each query after its first, at most so many and so
# long, on each side (time_alternately).
WARM_UP_REQUESTS = 10
WARM_UP_SECONDS = 3.0


class _Timing(object):
    """One server's requests of one query, and their Figures."""

    def __init__(self, client):
        self.client = client
        self.figures = Figures()
        self.iterations = 0
        # Seconds spent on untimed requests.
        self.warmed = 0.0

    @property
    def live(self):
        return self.figures.error is None

    def first(self, query, timeout):
        """The first request, which checks the answer.

        After a slow one, that one is the only measure.
        """
        figures = self.figures
        began = time.perf_counter()
        try:
            doc = self.client.call('GET', query.path)
        except (TimeoutError, OSError) as exc:
            figures.error = 'no answer in %d s (%s)' % (
                timeout, type(exc).__name__)
            figures.timed_out = True
            figures.seconds = timeout
            return
        first = time.perf_counter() - began
        figures.candidates = len(doc['allocation_requests'])
        self.iterations = query.iterations
        if first > 5.0:
            # One measure is all a slow answer gets.
            self.iterations = 0
            figures.latencies = [first]
            figures.seconds, figures.ops = first, 1

    def untimed(self, query):
        began = time.perf_counter()
        self.client.call('GET', query.path, parse=False)
        self.warmed += time.perf_counter() - began

    def timed(self, query):
        began = time.perf_counter()
        body = self.client.call('GET', query.path, parse=False)
        latency = time.perf_counter() - began
        if not body.startswith(b'{'):
            raise RuntimeError('not a JSON document')
        self.figures.latencies.append(latency)
        self.figures.seconds += latency
        self.figures.ops += 1

    def failed(self, exc):
        self.figures.error = '%s: %s' % (type(exc).__name__, str(exc)[:300])


def _each_live(timings, step):
    """``step(timing)`` for each timing still measuring.

    A failure ends that timing's measure, not the others'.
    """
    for timing in timings:
        if timing.live:
            try:
                step(timing)
            except Exception as exc:   # noqa: B902  reported in its figures
                timing.failed(exc)


def time_alternately(make_clients, query, timeout):
    """Figures of ``query`` on each server, their requests taking turns.

    Each server gets a first request, which checks the answer, and a
    warm-up; then the timed requests alternate between the servers, in
    turns ABBA, so that a server answers at the same moments of the
    machine as the others, and in the same place in each turn as often.
    On a shared machine, whose speed moves by a third from one minute to
    the next, servers measured one after the other minutes apart would be
    measured on different machines.
    """
    timings = [_Timing(make_client(timeout)) for make_client in make_clients]
    try:
        _each_live(timings, lambda timing: timing.first(query, timeout))
        # Untimed, on either side: the first requests after a load are
        # slower, most likely each meeting a database connection the load
        # opened, still cold for this query. Ours answered (e) on
        # PostgreSQL in 32 to 37 ms for its first 5 timed requests, then
        # in 27 to 33 (round 7 of the benchmark guide). Each side gets
        # as many as it would alone, the sides taking turns.
        for _ in range(min(query.iterations, WARM_UP_REQUESTS)):
            warming = [timing for timing in timings if timing.iterations
                       and timing.warmed < WARM_UP_SECONDS]
            if not warming:
                break
            _each_live(warming, lambda timing: timing.untimed(query))
        for turn in range(query.iterations):
            order = timings if turn % 2 == 0 else timings[::-1]
            _each_live([t for t in order if turn < t.iterations],
                       lambda timing: timing.timed(query))
    finally:
        for timing in timings:
            timing.client.close()
    return [timing.figures for timing in timings]


def _claim_order(requests, subset_size, rng):
    """The order a Nova-like scheduler claims ``requests`` in.

    One picked at random among the first ``subset_size`` (Nova's
    host_subset_size), then the alternates in the answer's order.
    """
    first = rng.randrange(min(subset_size, len(requests)))
    return [requests[first]] + requests[:first] + requests[first + 1:]


def scheduler_loop(make_client, scenario, step_error):
    """The scheduler loop; Figures with the placements per second."""
    figures = Figures()
    path = '/allocation_candidates?' + urllib.parse.urlencode(
        {'resources': 'VCPU:1,MEMORY_MB:512', 'limit': scenario.LIMIT},
        safe=':,')
    lock = threading.Lock()
    done = {'placed': 0, 'conflicts': 0, 'full': False, 'latencies': []}
    target = scenario.placements

    def worker(seed):
        client = make_client()
        rng = random.Random(seed)
        try:
            while True:
                with lock:
                    if done['full'] or done['placed'] >= target:
                        return
                began = time.perf_counter()
                doc = client.call('GET', path)
                requests = doc['allocation_requests']
                if not requests:
                    with lock:
                        done['full'] = True
                    return
                consumer = str(uuid.uuid4())
                for request in _claim_order(
                        requests, scenario.HOST_SUBSET_SIZE, rng):
                    try:
                        client.call('PUT', '/allocations/%s' % consumer, {
                            'allocations': request['allocations'],
                            'project_id': PROJECT_ID, 'user_id': USER_ID,
                            'consumer_generation': None,
                            'consumer_type': 'INSTANCE'}, expect=(204,))
                    except step_error:
                        with lock:
                            done['conflicts'] += 1
                        continue
                    with lock:
                        done['placed'] += 1
                        done['latencies'].append(
                            time.perf_counter() - began)
                    break
        finally:
            client.close()
    threads = [threading.Thread(target=worker, args=(SEED + index,))
               for index in range(scenario.THREADS)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    figures.seconds = time.perf_counter() - start
    figures.ops = done['placed']
    figures.latencies = done['latencies']
    figures.conflicts = done['conflicts']
    figures.candidates = done['placed']
    # No provider may hold more than its capacity.
    client = make_client()
    try:
        over = 0
        for provider in scenario.providers:
            usages = client.call(
                'GET', '/resource_providers/%s/usages' % provider.uuid)
            if usages['usages'].get('VCPU', 0) > scenario.CAPACITY:
                over += 1
        figures.over = over
    finally:
        client.close()
    return figures
