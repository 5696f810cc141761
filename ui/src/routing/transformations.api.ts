/** Every call the transformation screens make, and their shapes. */
import type {
  TestView,
  TransformationView,
} from "../../../src/transformations/transformations.service.ts";
import type { Api } from "../lib/api.ts";

export type Transformation = TransformationView;
export type TestResult = TestView;
const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);

export const listTransformations = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: Transformation[] }>("/api/v1/transformations", signal));
export const getTransformation = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Transformation }>(`/api/v1/transformations/${id}`, signal));
export const createTransformation = (api: Api, body: { name: string; code: string }) =>
  data(api.post<{ data: Transformation }>("/api/v1/transformations", body));
export const saveTransformation = (api: Api, id: string, body: { name: string; code: string }) =>
  data(api.put<{ data: Transformation }>(`/api/v1/transformations/${id}`, body));
export const deleteTransformation = (api: Api, id: string) =>
  api.delete(`/api/v1/transformations/${id}`);
export const testTransformation = (api: Api, code: string, request: unknown) =>
  data(api.post<{ data: TestResult }>("/api/v1/transformations/test", { code, request }));
