"""Calls `storefront serve` with Apple's own AppStoreServerAPIClient (app-store-server-library, PyPI) for
the Swift test suite (Tests/StoreServerTests/AppleClientTests.swift), and decodes every signed value in
every response with Apple's SignedDataVerifier.

stdin: {"baseUrl", "keyPath", "keyId", "issuerId", "bundleId", "environment", "appAppleId", "root": base64 DER,
        "calls": [{"label", "method": a client method name, "args": {...}, "repeat": N (optional)}]}
       An argument "@LABEL.FIELD" is FIELD of the result of the earlier call LABEL. An argument
       {"@model": "ClassName", ...} is Apple's model of that name, read from the JSON the server gets;
       {"@base64": "..."} is bytes. The method "verify_and_decode_realtime_request" is the verifier's.
stdout: {"results": [{"label", "ok", "result": the response as JSON with each signed value decoded under
         "decoded", or "error": {"httpStatus", "apiError", "message"}, "milliseconds": the median call's time}]}
"""
import base64
import importlib
import json
import statistics
import sys
import time
from enum import Enum
from uuid import UUID

import attr
from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.InAppOwnershipType import InAppOwnershipType
from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.Subtype import Subtype
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier


def plain(value):
    """A response model as JSON-able values (enums by their raw value)."""
    if attr.has(type(value)):
        return {field.name: plain(getattr(value, field.name)) for field in attr.fields(type(value))
                if not field.name.startswith("raw") and getattr(value, field.name) is not None}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    return value


class Decoder:
    """Verifies and decodes every signed value in a response, as a backend configured with the root would."""

    def __init__(self, verifier):
        self.verifier = verifier
        self.by_field = {
            "signedTransactionInfo": verifier.verify_and_decode_signed_transaction,
            "signedTransactions": verifier.verify_and_decode_signed_transaction,
            "signedRenewalInfo": verifier.verify_and_decode_renewal_info,
            "signedAppTransactionInfo": verifier.verify_and_decode_app_transaction,
            "signedPayload": verifier.verify_and_decode_notification,
        }

    def decode(self, value):
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if not isinstance(value, dict):
            return value
        result = {}
        for key, item in value.items():
            result[key] = self.decode(item)
            if key in self.by_field and item is not None:
                decode = self.by_field[key]
                result.setdefault("decoded", {})[key] = [plain(decode(i)) for i in item] if isinstance(item, list) else plain(decode(item))
        return result


def history_request(args):
    return TransactionHistoryRequest(
        startDate=args.get("startDate"), endDate=args.get("endDate"), productIds=args.get("productIds"),
        productTypes=[ProductType(t) for t in args["productTypes"]] if "productTypes" in args else None,
        sort=Order(args["sort"]) if "sort" in args else None,
        subscriptionGroupIdentifiers=args.get("subscriptionGroupIdentifiers"),
        inAppOwnershipType=InAppOwnershipType(args["inAppOwnershipType"]) if "inAppOwnershipType" in args else None,
        revoked=args.get("revoked"))


def all_pages(fetch, token_field, token=None):
    """Every page, following the revision or pagination token while hasMore; the pages' responses in order."""
    pages = []
    while True:
        response = fetch(token)
        pages.append(response)
        token = getattr(response, token_field)
        if not response.hasMore:
            return pages


def call(client, verifier, method, args):
    if method == "verify_and_decode_realtime_request":
        return verifier.verify_and_decode_realtime_request(args["signedPayload"])
    if method == "get_transaction_history":
        request = history_request(args.get("request", {}))
        version = GetTransactionHistoryVersion(args.get("version", "v2"))
        fetch = lambda revision: client.get_transaction_history(args["transactionId"], revision, request, version)
        return all_pages(fetch, "revision", args.get("revision")) if args.get("allPages") else fetch(args.get("revision"))
    if method == "get_refund_history":
        fetch = lambda revision: client.get_refund_history(args["transactionId"], revision)
        return all_pages(fetch, "revision", args.get("revision")) if args.get("allPages") else fetch(args.get("revision"))
    if method == "get_all_subscription_statuses":
        return client.get_all_subscription_statuses(args["transactionId"], [Status(s) for s in args["status"]] if "status" in args else None)
    if method == "send_consumption_information" and "request" in args:
        r = args["request"]
        return client.send_consumption_information(args["transactionId"], ConsumptionRequest(
            customerConsented=r["customerConsented"], sampleContentProvided=r["sampleContentProvided"],
            deliveryStatus=DeliveryStatus(r["deliveryStatus"]),
            refundPreference=RefundPreference(r["refundPreference"]) if "refundPreference" in r else None,
            consumptionPercentage=r.get("consumptionPercentage")))
    if method == "extend_subscription_renewal_date" and "request" in args:
        r = args["request"]
        return client.extend_subscription_renewal_date(args["originalTransactionId"], ExtendRenewalDateRequest(
            extendByDays=r["extendByDays"], extendReasonCode=ExtendReasonCode(r["extendReasonCode"]), requestIdentifier=r["requestIdentifier"]))
    if method == "get_notification_history":
        r = args.get("request", {})
        request = NotificationHistoryRequest(
            startDate=r.get("startDate"), endDate=r.get("endDate"),
            notificationType=NotificationTypeV2(r["notificationType"]) if "notificationType" in r else None,
            notificationSubtype=Subtype(r["notificationSubtype"]) if "notificationSubtype" in r else None,
            transactionId=r.get("transactionId"), onlyFailures=r.get("onlyFailures"))
        fetch = lambda token: client.get_notification_history(token, request)
        return all_pages(fetch, "paginationToken", args.get("paginationToken")) if args.get("allPages") else fetch(args.get("paginationToken"))
    return getattr(client, method)(**args)


def model(name, fields):
    """Apple's model class `name` read from `fields`, the JSON the server is to get."""
    cls = getattr(importlib.import_module("appstoreserverlibrary.models." + name), name)
    return _get_cattrs_converter(cls).structure(fields, cls)


def resolve(args, results):
    def value(v):
        if isinstance(v, str) and v.startswith("@"):
            label, field = v[1:].split(".", 1)
            return results[label]["result"][field]
        if isinstance(v, dict) and "@model" in v:
            return model(v["@model"], {k: value(x) for k, x in v.items() if k != "@model"})
        if isinstance(v, dict) and "@enum" in v:
            return getattr(importlib.import_module("appstoreserverlibrary.models." + v["@enum"]), v["@enum"])(v["value"])
        if isinstance(v, dict) and "@base64" in v:
            return base64.b64decode(v["@base64"])
        if isinstance(v, dict):
            return {k: value(x) for k, x in v.items()}
        return v
    return value(args)


def timed(run, times):
    """The last run's response and the median run's time in milliseconds."""
    durations, response = [], None
    for _ in range(times):
        started = time.perf_counter()
        response = run()
        durations.append((time.perf_counter() - started) * 1000)
    return response, round(statistics.median(durations), 2)


def main():
    request = json.load(sys.stdin)
    with open(request["keyPath"], "rb") as key:
        client = AppStoreServerAPIClient(key.read(), request["keyId"], request["issuerId"], request["bundleId"],
                                         Environment(request["environment"]))
    client._base_url = request["baseUrl"]  # the library has no parameter for it (see reference/storekit.md)
    verifier = SignedDataVerifier([base64.b64decode(request["root"])], False, Environment(request["environment"]),
                                  request["bundleId"], request.get("appAppleId"))
    decoder = Decoder(verifier)
    results, out = {}, []
    for spec in request["calls"]:
        entry = {"label": spec["label"], "ok": True}
        try:
            args = resolve(spec.get("args", {}), results)
            response, entry["milliseconds"] = timed(lambda: call(client, verifier, spec["method"], args), spec.get("repeat", 1))
            entry["result"] = decoder.decode(plain(response)) if response is not None else {}
        except APIException as error:
            entry["ok"] = False
            entry["error"] = {"httpStatus": error.http_status_code, "apiError": error.raw_api_error, "message": error.error_message}
        except Exception as error:  # a decoding or verification failure is a finding, not a crash of the suite
            entry["ok"] = False
            entry["error"] = {"httpStatus": None, "apiError": None, "message": repr(error)}
        results[spec["label"]] = entry
        out.append(entry)
    json.dump({"results": out}, sys.stdout)


if __name__ == "__main__":
    main()
