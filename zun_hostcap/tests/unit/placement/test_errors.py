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

"""How a Placement handler turns the model's exceptions into errors."""

import webob.exc

from zun_hostcap.api.placement import errors
from zun_hostcap.common import exception
from zun_hostcap.common import placement_codes as codes
from zun_hostcap.tests import base

UUID = '11111111-1111-4111-8111-111111111111'


class Controller(object):

    def __init__(self, provider_uuid):
        self.provider_uuid = provider_uuid

    @errors.answers({
        exception.ResourceProviderConcurrentUpdate:
            errors.GENERATION_CONFLICT,
        (exception.InvalidInventory, exception.ConcurrentUpdateDetected):
            errors.Fault(409, 'On {provider_uuid}: {message} ({reason})',
                         codes.CONCURRENT_UPDATE),
        exception.InventoryInUse: errors.Fault(409),
    })
    def put(self, req, exc):
        raise exc


class TestAnswers(base.TestCase):

    def answer(self, exc):
        return self.assertRaises(webob.exc.HTTPException,
                                 Controller(UUID).put, None, exc)

    def test_the_first_matching_fault_answers(self):
        # A ResourceProviderConcurrentUpdate is a ConcurrentUpdateDetected
        # too: the fault named first is the one.
        error = self.answer(
            exception.ResourceProviderConcurrentUpdate(uuid=UUID))
        self.assertEqual(409, error.code)
        self.assertEqual(codes.CONCURRENT_UPDATE, error.comment)
        self.assertEqual(errors.GENERATION_CONFLICT.detail, error.detail)

    def test_detail_names_the_exception_and_the_controller(self):
        error = self.answer(exception.InvalidInventory(
            resource_class='VCPU', uuid=UUID, reason='capacity'))
        self.assertEqual(
            'On %s: Inventory for VCPU on resource provider %s invalid: '
            'capacity (capacity)' % (UUID, UUID), error.detail)

    def test_no_detail_keeps_the_message_and_the_code_is_undefined(self):
        error = self.answer(exception.InventoryInUse(
            resource_classes='VCPU', uuid=UUID))
        self.assertEqual(409, error.code)
        self.assertEqual(codes.UNDEFINED, error.comment)
        self.assertEqual('Inventory for VCPU on resource provider %s in '
                         'use.' % UUID, error.detail)

    def test_other_exceptions_pass_as_they_are(self):
        self.assertRaises(exception.ResourceProviderNotFound,
                          Controller(UUID).put, None,
                          exception.ResourceProviderNotFound(uuid=UUID))
